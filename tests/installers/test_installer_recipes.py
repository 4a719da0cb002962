"""The Windows/macOS recipes and the release workflow cannot run here (no such machines); these
tests pin the fixes that reading them found, so they cannot silently come back. CI also runs
actionlint on the workflow (packaging/ci.sh)."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = (ROOT / ".github/workflows/installers.yml").read_text()
MAC = (ROOT / "packaging/macos/build.sh").read_text()
ISS = (ROOT / "packaging/windows/checkpoint-inspector.iss").read_text()
PS1 = (ROOT / "packaging/windows/build.ps1").read_text()
SPEC = (ROOT / "packaging/pyinstaller/checkpoint-inspector.spec").read_text()


def test_workflow_uses_current_runners_and_publishes_checksums():
    assert "runner: [macos-15, macos-15-intel]" in WORKFLOW  # macos-13 is retired
    assert "macos-13" not in WORKFLOW.split("name: installers")[1]
    assert "runs-on: windows-latest" in WORKFLOW
    assert "sha256sum -- * > SHA256SUMS" in WORKFLOW
    assert "gh release create" in WORKFLOW
    # secrets gate the signing steps through env (the secrets context is not allowed in `if:`)
    assert "HAVE_MAC_CERT: ${{ secrets.MACOS_CERTIFICATE_P12 != '' }}" in WORKFLOW
    assert "security create-keychain" in WORKFLOW and "security delete-keychain" in WORKFLOW
    assert "mapfile" not in WORKFLOW  # macOS's own bash 3.2 has none


def _job(name: str) -> str:
    """The text of one job of the workflow."""
    body = WORKFLOW.split("\njobs:\n", 1)[1]
    start = body.index(f"\n  {name}:\n") if not body.startswith(f"  {name}:\n") else 0
    rest = body[start + 1:]
    nxt = re.search(r"\n  [a-z][a-z-]*:\n", rest[len(name) + 4:])
    return rest[:len(name) + 4 + nxt.start()] if nxt else rest


def test_a_tag_builds_a_release_that_refuses_what_it_cannot_vouch_for():
    assert "RELEASE: ${{ startsWith(github.ref, 'refs/tags/v') && '1' || '0' }}" in WORKFLOW
    # every build job names its artifact by what it checked; an unsigned one is only a test artifact
    assert "format('UNSIGNED-test-build-windows-{0}', github.sha)" in _job("windows")
    assert "format('UNSIGNED-test-build-macos-{0}-{1}', runner.arch, github.sha)" in _job("macos")
    assert "format('UNSIGNED-test-build-linux-{0}', github.sha)" in _job("linux")
    assert "steps.verify.outputs.signed == 'true' && 'signed-windows'" in _job("windows")
    # the checks that decide it, on the build runner and again on fresh runners before publishing
    assert "& $signtool verify /pa /v $setup" in _job("windows")
    assert "& $signtool verify /pa /v $setups[0].FullName" in _job("verify-windows")
    for check in ('codesign --verify --deep --strict --verbose=2 "$app"', 'spctl -a -t exec -vv "$app"',
                  'xcrun stapler validate "$app"', 'xcrun stapler validate "$dmg"'):
        assert check in _job("macos") and check in _job("verify-macos"), check
    assert "source=Notarized Developer ID" in _job("verify-macos")
    assert 'throw "release build: the installer is not validly signed and timestamped"' in _job("windows")
    assert 'if [ "$signed" != true ] && [ "$RELEASE" = 1 ]; then' in _job("macos")
    # the release job publishes only signed artifacts, and fails (never warns) on anything else
    release = _job("release")
    assert "needs: [linux, windows, macos, verify-windows, verify-macos]" in release
    assert "pattern: signed-*" in release and "name: linux-packages" in release and "UNSIGNED" not in release
    assert "::warning" not in release and release.count("exit 1") + release.count("fail ") >= 4
    assert "grep -qx 'status: signed' signing-windows.txt" in release
    assert "grep -qx 'status: signed-notarised' \"$report\"" in release
    assert "*example.invalid*" in release  # the .deb's placeholder maintainer
    assert "gpg --batch --verify SHA256SUMS.asc SHA256SUMS" in release
    # Windows signs in to Azure with OpenID Connect: no stored password
    assert "id-token: write" in _job("windows") and "uses: azure/login@v3" in _job("windows")
    assert "secrets.WINDOWS_CERT" not in WORKFLOW


def test_macos_signs_inside_out_without_deep_and_verifies_every_signature():
    signing = [line for line in MAC.splitlines() if "codesign" in line and "--sign" in line]
    assert signing and not any("--deep" in line for line in signing)
    for check in ("codesign --verify --strict", "xcrun stapler validate", "spctl --assess --type open",
                  "spctl --assess --type execute", "notarytool submit"):
        assert check in MAC, check
    assert 'warn "CODESIGN_IDENTITY is not set' in MAC


def _info_plist() -> dict:
    """The spec's ``info_plist={...}`` literal (the VERSION name replaced), parsed."""
    start = SPEC.index("info_plist=") + len("info_plist=")
    depth = 0
    for end in range(start, len(SPEC)):
        depth += {"{": 1, "}": -1}.get(SPEC[end], 0)
        if depth == 0:
            break
    return ast.literal_eval(SPEC[start:end + 1].replace(": VERSION,", ": '0',"))


def test_macos_minimum_and_document_types():
    plist = _info_plist()
    assert plist["LSMinimumSystemVersion"] == "13.0"  # PySide6 6.11.3 wheels: macosx_13_0
    doc_types = plist["CFBundleDocumentTypes"]
    assert [(d["LSItemContentTypes"], d["LSHandlerRank"], d["CFBundleTypeRole"]) for d in doc_types] == [
        (["dev.a3s.code.session-checkpoint.v1"], "Owner", "Viewer"), (["public.json"], "Alternate", "Viewer")]
    exported = plist["UTExportedTypeDeclarations"]
    assert [t["UTTypeIdentifier"] for t in exported] == ["dev.a3s.code.session-checkpoint.v1"]
    tags = exported[0]["UTTypeTagSpecification"]
    # macOS types a file by its last extension: "payload.json" can never match, and "json" would
    # retype every JSON file on the Mac as ours; the type matches by MIME type only
    assert "public.filename-extension" not in tags
    assert tags["public.mime-type"] == ["application/vnd.a3s.code.session-checkpoint.v1+json"]
    assert exported[0]["UTTypeConformsTo"][0] == "public.json"


def test_macos_notarises_and_staples_the_app_before_the_dmg_then_the_dmg():
    body = MAC.split("[ -x \"$BUILD/venv/bin/pyinstaller\" ]", 1)[1]
    order = ["notarise \"$ZIP\"", 'xcrun stapler staple "$APP"', 'xcrun stapler validate "$APP"',
             "hdiutil create", 'notarise "$DMG"', 'xcrun stapler staple "$DMG"', 'xcrun stapler validate "$DMG"',
             'xcrun stapler validate "$TARGET/Checkpoint Inspector.app"']
    positions = [body.index(step) for step in order]
    assert positions == sorted(positions)
    assert "ditto -c -k --sequesterRsrc --keepParent" in body  # notarytool takes a zip of the app, not the .app
    assert 'xcrun notarytool submit "$file" "${notary_args[@]}" --wait' in MAC
    assert '--key "$NOTARY_API_KEY" --key-id "$NOTARY_API_KEY_ID"' in MAC  # App Store Connect API key
    assert '--keychain-profile "$NOTARY_PROFILE"' in MAC
    assert "--options runtime" in MAC and "flags=0x10000(runtime)" in MAC
    assert 'if [ "${RELEASE:-0}" = 1 ]; then' in MAC  # a release build refuses to go on unsigned


def test_inno_setup_clears_old_bundle_removes_path_and_never_takes_json():
    assert '[InstallDelete]\n; An upgrade' in ISS and 'Type: filesandordirs; Name: "{app}\\_internal"' in ISS
    assert "procedure CurUninstallStepChanged" in ISS and "RemoveFromPath(ExpandConstant('{app}'))" in ISS
    assert "MinVersion=10.0.17763" in ISS
    json_keys = [line for line in ISS.splitlines() if "Classes\\.json" in line]
    # never .json's default: a value only under OpenWithProgids, the .json key itself only removed when empty
    assert json_keys and all("OpenWithProgids" in line or "ValueType" not in line for line in json_keys)


def test_windows_build_checks_exit_codes_and_signatures():
    assert "Start-Process -Wait -PassThru" in PS1 and "$p.ExitCode -ne 0" in PS1
    assert "& $SignTool verify /pa /v $Path" in PS1
    assert "TimeStamperCertificate" in PS1  # a signature without a timestamp is refused
    assert "uninstall left $Target in the user PATH" in PS1
    assert "uninstall left the Applications key" in PS1
    assert "upgrade kept a stale file in _internal" in PS1
    assert "::warning title=Windows signing::" in PS1
    assert 'throw "RELEASE=1: $Text"' in PS1


def test_windows_signs_with_a_key_that_cannot_be_exported():
    # code-signing keys issued since June 2023 live in hardware: no .pfx anywhere any more
    code = "\n".join(line for line in PS1.splitlines() if not line.lstrip().startswith("#"))
    for gone in ("pfx", "PFX", "WINDOWS_CERT_PASSWORD", " /f ", " /p "):
        assert gone not in code, gone
    # Azure Trusted Signing through signtool's dlib, with its metadata.json
    assert '"/dlib", $Dlib, "/dmdf", $Metadata' in PS1
    assert "Endpoint = $env:AZURE_SIGNING_ENDPOINT; CodeSigningAccountName = $env:AZURE_SIGNING_ACCOUNT" in PS1
    assert "CertificateProfileName = $env:AZURE_SIGNING_PROFILE" in PS1
    assert '[version]"10.0.22621.755"' in PS1  # the dlib's minimum signtool
    # or jsign against a cloud HSM / PKCS#11 token, its password read from the environment by jsign
    assert '"--storepass", "env:JSIGN_STOREPASS"' in PS1 and "$env:JSIGN_STOREPASS)" not in PS1.split("--storepass")[1][:40]
    # SHA-256 file digest and an RFC 3161 timestamp with SHA-256, in both
    assert '"/fd", "SHA256", "/tr", $TimestampUrl, "/td", "SHA256"' in PS1
    assert '"--alg", "SHA-256"' in PS1 and '"--tsmode", "RFC3161"' in PS1
    # the same command signs the uninstaller and the setup through Inno Setup's SignTool
    assert '$IsccArgs += "/Sci=$SignCommand"' in PS1 and "`$f" in PS1
    assert "SignTool=ci\nSignedUninstaller=yes" in ISS
    assert 'Test-Signature "$Target\\unins000.exe"' in PS1 and "Test-Signature $Setup" in PS1


_ISS_FIELD = re.compile(r'(\w+): ("(?:[^"]|"")*"|[^;]*)')


def _registry_entries(iss: str) -> list[dict]:
    """The [Registry] lines of the "Open with" task: Subkey, ValueName, ValueType, ValueData, Flags."""
    section = iss.split("[Registry]\n", 1)[1].split("\n[", 1)[0]
    entries = []
    for line in section.splitlines():
        if not line.startswith("Root:"):
            continue
        fields = {k: v.strip().strip('"').replace('""', '"') for k, v in _ISS_FIELD.findall(line)}
        if fields.get("Tasks") == "openwith":
            entries.append(fields)
    return entries


def _install_then_uninstall(entries: list[dict], registry: dict) -> dict:
    """Inno Setup's semantics on a model registry (key -> {value name: data}): install creates every key
    (and its parents) and writes the value; uninstall undoes the flagged entries in reverse order."""
    reg = {k: dict(v) for k, v in registry.items()}
    for e in entries:
        parts = e["Subkey"].split("\\")
        for i in range(1, len(parts) + 1):
            reg.setdefault("\\".join(parts[:i]), {})
        if e.get("ValueType", "none") != "none":
            reg[e["Subkey"]][e.get("ValueName", "")] = e.get("ValueData", "")
    for e in reversed(entries):
        key, flags = e["Subkey"], e.get("Flags", "").split()
        if "uninsdeletevalue" in flags and key in reg:
            reg[key].pop(e.get("ValueName", ""), None)
        if "uninsdeletekey" in flags:
            reg = {k: v for k, v in reg.items() if k != key and not k.startswith(key + "\\")}
        elif "uninsdeletekeyifempty" in flags and key in reg and not reg[key] \
                and not any(k.startswith(key + "\\") for k in reg):
            del reg[key]
    return reg


def test_uninstall_leaves_the_registry_as_it_found_it():
    entries = _registry_entries(ISS)
    assert {e["Subkey"] for e in entries} >= {"Software\\Classes\\A3S.SessionCheckpoint.1",
                                               "Software\\Classes\\Applications\\Checkpoint Inspector.exe"}
    profile = {"Software": {}, "Software\\Classes": {}, "Software\\Classes\\Applications": {}}
    with_json = dict(profile, **{"Software\\Classes\\.json": {"": "JSONFile", "Content Type": "application/json"},
                                 "Software\\Classes\\.json\\OpenWithProgids": {"VSCode.json": ""}})
    for before in (profile, with_json):
        assert _install_then_uninstall(entries, before) == before
    # installed: our ProgID is offered for .json, and .json's default is never ours
    installed = _install_then_uninstall([dict(e, Flags="") for e in entries], with_json)
    assert "A3S.SessionCheckpoint.1" in installed["Software\\Classes\\.json\\OpenWithProgids"]
    assert installed["Software\\Classes\\.json"][""] == "JSONFile"
    assert installed["Software\\Classes\\Applications\\Checkpoint Inspector.exe"] == {"FriendlyAppName": "Checkpoint Inspector"}


def test_the_registry_model_finds_the_key_round_two_left_behind():
    old = ISS.replace('ValueData: "Checkpoint Inspector"; Flags: uninsdeletekey;', 'ValueData: "Checkpoint Inspector";')
    old = old.replace('ValueName: ".json"; ValueData: ""; Tasks: openwith',
                      'ValueName: ".json"; ValueData: ""; Flags: uninsdeletekey; Tasks: openwith')
    assert old != ISS
    profile = {"Software": {}, "Software\\Classes": {}, "Software\\Classes\\Applications": {}}
    left = _install_then_uninstall(_registry_entries(old), profile)
    assert set(left) - set(profile) == {"Software\\Classes\\Applications\\Checkpoint Inspector.exe"}


def test_the_workflow_is_where_github_runs_it():
    assert (ROOT / ".github/workflows/installers.yml").is_file()
    assert not (ROOT / "packaging/ci").exists()
    assert "copy it to .github/workflows" not in WORKFLOW
    ci = (ROOT / "packaging/ci.sh").read_text()
    assert ".github/workflows/installers.yml" in ci.split('check "workflow: actionlint')[1].split("\n")[1]


def test_hdiutil_create_retries_resource_busy_and_fails_at_once_on_anything_else(tmp_path):
    """The macOS build's ``hdiutil_create``, run with a stand-in ``hdiutil`` that fails ``N`` times first."""
    import subprocess

    function = re.search(r"^hdiutil_create\(\) \{.*?^\}$", MAC, re.MULTILINE | re.DOTALL).group(0)
    (tmp_path / "bin").mkdir()
    fake = tmp_path / "bin" / "hdiutil"
    fake.write_text('#!/bin/bash\nn=$(cat "$COUNT" 2>/dev/null || echo 0); echo $((n + 1)) > "$COUNT"\n'
                    'if [ "$n" -lt "$FAILS" ]; then echo "hdiutil: create failed - $MESSAGE" >&2; exit 1; fi\n'
                    'echo "created: ${@: -1}"\n')
    fake.chmod(0o755)

    def run(fails: int, message: str):
        count = tmp_path / f"count-{fails}-{len(message)}"
        p = subprocess.run(["bash", "-c", f"set -euo pipefail\n{function}\nhdiutil_create stage out.dmg"],
                           capture_output=True, text=True, timeout=60,
                           env={"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", "COUNT": str(count), "FAILS": str(fails),
                                "MESSAGE": message, "HDIUTIL_RETRY_SECONDS": "0"})
        return p.returncode, int(count.read_text()), p.stdout + p.stderr

    code, calls, out = run(2, "Resource busy")
    assert (code, calls) == (0, 3) and "created: out.dmg" in out and "attempt 3 of 5" in out
    code, calls, out = run(9, "Resource busy")
    assert (code, calls) == (1, 5) and "hdiutil create failed" in out
    code, calls, out = run(1, "No space left on device")
    assert (code, calls) == (1, 1)


def test_iscc_is_found_on_path_or_where_inno_setup_6_or_7_installs_it():
    find = PS1.split("function Find-Iscc {", 1)[1].split("\n}\n", 1)[0]
    assert "Get-Command iscc.exe" in find
    assert 'foreach ($major in @("7", "6"))' in find and '"Inno Setup $major\\ISCC.exe"' in find
    assert "${env:ProgramFiles(x86)}" in find and "$env:ProgramFiles" in find
    assert "Inno Setup 6\\ISCC.exe" not in PS1.split("function Find-Iscc {", 1)[0] + PS1.split("\n}\n", 1)[1]


def test_the_release_signs_only_with_the_published_key_and_attaches_it():
    release = _job("release")
    assert "packaging/release-signing-key.asc" in release
    assert "the signing key is not the one published" in release
    assert "cp \"$published\" release-signing-key.asc" in release
    doc = (ROOT / "docs/installers.md").read_text()
    assert "gpg --verify SHA256SUMS.asc SHA256SUMS" in doc and "packaging/release-signing-key.asc" in doc
