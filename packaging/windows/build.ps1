# Build the Windows installer of Checkpoint Inspector (NOT run on the Linux build machine:
# there is no Windows there; the workflow packaging/ci/github-workflow-installers.yml runs it).
#
#   powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1
#
# Needs: Python 3.11+ (python.org or the runner's), Inno Setup 6 (iscc.exe; preinstalled on
# GitHub's windows-2022 runners, else `choco install innosetup`).
# Produces: dist\checkpoint-inspector\            one-folder bundle (two executables, see the spec)
#           dist\CheckpointInspector-<version>-setup.exe   per-user installer, no admin rights needed
$ErrorActionPreference = "Stop"
$Root = (Resolve-Path "$PSScriptRoot\..\..").Path
Set-Location $Root
$Version = (Select-String -Path inspector\__init__.py -Pattern '^__version__ = "(.+)"').Matches[0].Groups[1].Value
$Build = "$Root\build\packaging"

# 1. Clean venv, project installed non-editable, pinned build tools.
if (-not (Test-Path "$Build\venv\Scripts\pyinstaller.exe")) { python -m venv "$Build\venv" }
& "$Build\venv\Scripts\pip.exe" install -q -c packaging\requirements-build.txt "$Root[gui,package]"
if ($LASTEXITCODE) { throw "pip install failed" }
& "$Build\venv\Scripts\pip.exe" install -q --no-deps --force-reinstall "$Root"

# 2. The bundle (checkpoint-inspector.exe = console/CLI, "Checkpoint Inspector.exe" = windowed).
& "$Build\venv\Scripts\pyinstaller.exe" --noconfirm --clean --log-level WARN `
    --distpath "$Build\dist" --workpath "$Build\work" packaging\pyinstaller\checkpoint-inspector.spec
if ($LASTEXITCODE) { throw "pyinstaller failed" }

# 3. The self-test must pass from the bundle before it is packaged.
& "$Build\dist\checkpoint-inspector\checkpoint-inspector.exe" --self-test
if ($LASTEXITCODE) { throw "self-test failed" }

# 4. The installer.
$Iscc = (Get-Command iscc.exe -ErrorAction SilentlyContinue).Source
if (-not $Iscc) { $Iscc = "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" }
New-Item -ItemType Directory -Force dist | Out-Null
& $Iscc /Qp "/DAppVersion=$Version" "/DSourceDir=$Build\dist\checkpoint-inspector" "/DOutputDir=$Root\dist" `
    "/DIconFile=$Root\resources\icons\checkpoint-inspector.ico" packaging\windows\checkpoint-inspector.iss
if ($LASTEXITCODE) { throw "iscc failed" }

# 5. Install silently into a scratch folder and run the self-test from the installed copy.
$Setup = "$Root\dist\CheckpointInspector-$Version-setup.exe"
$Target = "$env:RUNNER_TEMP\ci-install"
if (-not $env:RUNNER_TEMP) { $Target = "$env:TEMP\ci-install" }
Start-Process -Wait -FilePath $Setup -ArgumentList "/VERYSILENT", "/SUPPRESSMSGBOXES", "/CURRENTUSER", "/NORESTART", "/DIR=$Target", "/TASKS="
& "$Target\checkpoint-inspector.exe" --self-test
if ($LASTEXITCODE) { throw "self-test of the installed copy failed" }
Get-ChildItem dist | Format-Table Name, Length
