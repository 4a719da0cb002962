// Syntax check of PowerShell scripts without PowerShell (none installs from Debian's archives or PyPI):
// the tree-sitter PowerShell grammar, run through web-tree-sitter. Prints every ERROR / MISSING node and
// exits 1 if there is one. It checks syntax only (not names, types or behaviour), and the grammar rejects
// a bare array argument (`Format-Table Name, Length`): write `-Property @("Name", "Length")`.
//
//   npm install --prefix /tmp/tsps --ignore-scripts tree-sitter-powershell@0.26.4 web-tree-sitter@0.25
//   NODE_PATH=/tmp/tsps/node_modules node packaging/windows/check_ps1.mjs packaging/windows/build.ps1
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const modules = process.env.NODE_PATH || path.join(process.cwd(), 'node_modules');
const require = createRequire(path.join(modules, 'x.js'));
const { Parser, Language } = await import(require.resolve('web-tree-sitter'));
await Parser.init();
const grammar = path.join(path.dirname(require.resolve('tree-sitter-powershell/package.json')), 'tree-sitter-powershell.wasm');
const parser = new Parser();
parser.setLanguage(await Language.load(grammar));
let bad = 0;
for (const file of process.argv.slice(2)) {
  const tree = parser.parse(fs.readFileSync(file, 'utf8'));
  const walk = (node) => {
    if (node.type === 'ERROR' || node.isMissing) {
      bad += 1;
      const at = `${file}:${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
      console.log(`${at}: ${node.isMissing ? 'missing ' + node.type : 'syntax error'}: ${node.text.slice(0, 80).replace(/\n/g, '\\n')}`);
    }
    for (const child of node.children) walk(child);
  };
  walk(tree.rootNode);
  console.log(`${file}: ${tree.rootNode.hasError ? 'SYNTAX ERRORS' : 'parsed without error'}`);
}
process.exit(bad ? 1 : 0);
