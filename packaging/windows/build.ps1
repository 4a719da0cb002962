# Build the Windows installer of Checkpoint Inspector (NOT run on the Linux build machine:
# there is no Windows there; the workflow packaging/ci/github-workflow-installers.yml runs it).
#
#   powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1
#
# Needs: Windows 10 1809+ x64, Python 3.11+ (python.org or the runner's), Inno Setup 6 (iscc.exe;
# `choco install innosetup` when missing), for signing the Windows SDK's signtool.exe.
# Produces: dist\CheckpointInspector-<version>-setup.exe   per-user installer, no admin rights needed
#
# Authenticode: with WINDOWS_CERT_PFX_BASE64 (a code-signing .pfx, base64) and
# WINDOWS_CERT_PASSWORD set, both executables, the uninstaller and the setup are signed with
# SHA-256 and an RFC 3161 timestamp, and each signature is checked with `signtool verify /pa`.
# Without them: unsigned, with a visible warning (SmartScreen will warn users).
# Every external command's exit code is checked; the installer is installed silently, self-tested,
# upgraded in place (a stale file in _internal must disappear), and uninstalled (the PATH entry
# must disappear).
$ErrorActionPreference = "Stop"
$Root = (Resolve-Path "$PSScriptRoot\..\..").Path
Set-Location $Root
$Version = (Select-String -Path inspector\__init__.py -Pattern '^__version__ = "(.+)"').Matches[0].Groups[1].Value
$Build = "$Root\build\packaging"

function Invoke-Checked([string]$What, [scriptblock]$Command) {
    & $Command
    if ($LASTEXITCODE -ne 0) { throw "$What failed with exit code $LASTEXITCODE" }
}
function Write-CiWarning([string]$Text) {
    if ($env:GITHUB_ACTIONS) { Write-Output "::warning title=Windows signing::$Text" } else { Write-Warning $Text }
}
function Start-Checked([string]$What, [string]$File, [string[]]$Arguments) {
    $p = Start-Process -Wait -PassThru -FilePath $File -ArgumentList $Arguments
    if ($p.ExitCode -ne 0) { throw "$What failed with exit code $($p.ExitCode)" }
}

# 0. Signing material (optional).
$SignTool = $null
$Pfx = $null
if ($env:WINDOWS_CERT_PFX_BASE64) {
    $SignTool = Get-ChildItem "${env:ProgramFiles(x86)}\Windows Kits\10\bin\*\x64\signtool.exe" |
        Sort-Object FullName -Descending | Select-Object -First 1 -ExpandProperty FullName
    if (-not $SignTool) { throw "signtool.exe not found (install the Windows SDK)" }
    $Pfx = Join-Path ([IO.Path]::GetTempPath()) "ci-codesign.pfx"
    [IO.File]::WriteAllBytes($Pfx, [Convert]::FromBase64String($env:WINDOWS_CERT_PFX_BASE64))
} else {
    Write-CiWarning "WINDOWS_CERT_PFX_BASE64 is not set: the executables and the installer are NOT Authenticode-signed"
}
function Sign-File([string]$Path) {
    if (-not $SignTool) { return }
    Invoke-Checked "signtool sign $Path" { & $SignTool sign /fd SHA256 /tr http://timestamp.digicert.com /td SHA256 /f $Pfx /p $env:WINDOWS_CERT_PASSWORD $Path }
    Invoke-Checked "signtool verify $Path" { & $SignTool verify /pa /v $Path }
}

try {
    # 1. Clean venv, project installed non-editable, pinned build tools.
    if (-not (Test-Path "$Build\venv\Scripts\pyinstaller.exe")) { Invoke-Checked "venv" { python -m venv "$Build\venv" } }
    Invoke-Checked "pip install" { & "$Build\venv\Scripts\pip.exe" install -q -c packaging\requirements-build.txt "$Root[gui,package]" }
    Invoke-Checked "pip install (this tree)" { & "$Build\venv\Scripts\pip.exe" install -q --no-deps --force-reinstall "$Root" }

    # 2. The bundle (checkpoint-inspector.exe = console/CLI, "Checkpoint Inspector.exe" = windowed)
    #    and its licence folder, generated from what it contains.
    Invoke-Checked "pyinstaller" { & "$Build\venv\Scripts\pyinstaller.exe" --noconfirm --clean --log-level WARN `
        --distpath "$Build\dist" --workpath "$Build\work" packaging\pyinstaller\checkpoint-inspector.spec }
    $Bundle = "$Build\dist\checkpoint-inspector"
    Invoke-Checked "make_notices" { & "$Build\venv\Scripts\python.exe" packaging\licenses\make_notices.py --bundle $Bundle }
    Sign-File "$Bundle\checkpoint-inspector.exe"
    Sign-File "$Bundle\Checkpoint Inspector.exe"

    # 3. The self-test must pass from the bundle before it is packaged.
    Invoke-Checked "self-test (bundle)" { & "$Bundle\checkpoint-inspector.exe" --self-test --require-gui }

    # 4. The installer (the uninstaller is signed by iscc through SignTool when signing is on).
    $Iscc = (Get-Command iscc.exe -ErrorAction SilentlyContinue).Source
    if (-not $Iscc) { $Iscc = "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" }
    if (-not (Test-Path $Iscc)) {
        Invoke-Checked "choco install innosetup" { choco install innosetup -y --no-progress }
        $Iscc = "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe"
    }
    New-Item -ItemType Directory -Force dist | Out-Null
    $IsccArgs = @("/Qp", "/DAppVersion=$Version", "/DSourceDir=$Bundle", "/DOutputDir=$Root\dist",
                  "/DIconFile=$Root\resources\icons\checkpoint-inspector.ico")
    if ($SignTool) {
        $IsccArgs += "/DSigned=1"
        $IsccArgs += "/Sci=`$q$SignTool`$q sign /fd SHA256 /tr http://timestamp.digicert.com /td SHA256 /f `$q$Pfx`$q /p `$q$($env:WINDOWS_CERT_PASSWORD)`$q `$f"
    }
    Invoke-Checked "iscc" { & $Iscc @IsccArgs packaging\windows\checkpoint-inspector.iss }
    $Setup = "$Root\dist\CheckpointInspector-$Version-setup.exe"
    Sign-File $Setup

    # 5. Install silently (with PATH) into a scratch folder and self-test the installed copy.
    $Target = if ($env:RUNNER_TEMP) { "$env:RUNNER_TEMP\ci-install" } else { "$env:TEMP\ci-install" }
    $InstallArgs = @("/VERYSILENT", "/SUPPRESSMSGBOXES", "/CURRENTUSER", "/NORESTART", "/DIR=$Target", "/TASKS=addtopath,openwith")
    Start-Checked "install" $Setup $InstallArgs
    Invoke-Checked "self-test (installed)" { & "$Target\checkpoint-inspector.exe" --self-test --require-gui }
    if (-not (Test-Path "$Target\_internal\licenses\THIRD-PARTY-NOTICES.txt")) { throw "licences missing from the installed copy" }
    $UserPath = [Environment]::GetEnvironmentVariable("Path", "User")
    if (-not ($UserPath -split ";" -contains $Target)) { throw "install did not add $Target to the user PATH" }

    # 6. Upgrade in place: a file only the old version had in _internal must be gone afterwards.
    Set-Content -Path "$Target\_internal\stale-from-old-version.txt" -Value "old"
    Start-Checked "upgrade" $Setup $InstallArgs
    if (Test-Path "$Target\_internal\stale-from-old-version.txt") { throw "upgrade kept a stale file in _internal" }
    Invoke-Checked "self-test (upgraded)" { & "$Target\checkpoint-inspector.exe" --self-test --require-gui }

    # 7. Uninstall: the folder's PATH entry and the "Open with" registration go away.
    Start-Checked "uninstall" "$Target\unins000.exe" @("/VERYSILENT", "/SUPPRESSMSGBOXES", "/NORESTART")
    Start-Sleep -Seconds 2  # the uninstaller finishes removing itself from a copy in %TEMP%
    $UserPath = [Environment]::GetEnvironmentVariable("Path", "User")
    if ($UserPath -and ($UserPath -split ";" -contains $Target)) { throw "uninstall left $Target in the user PATH" }
    if (Test-Path "HKCU:\Software\Classes\A3S.SessionCheckpoint.1") { throw "uninstall left the ProgID" }
    Get-ChildItem dist | Format-Table Name, Length
} finally {
    if ($Pfx -and (Test-Path $Pfx)) { Remove-Item -Force $Pfx }
}
