# Build the Windows installer of Checkpoint Inspector (NOT run on the Linux build machine:
# there is no Windows there; the workflow .github/workflows/installers.yml runs it).
#
#   powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1
#
# Needs: Windows 10 1809+ x64, Python 3.11+ (python.org or the runner's), Inno Setup 6 (iscc.exe;
# `choco install innosetup` when missing), for signing the Windows SDK's signtool.exe.
# Produces: dist\CheckpointInspector-<version>-setup.exe   per-user installer, no admin rights needed
#           dist\signing-windows.txt                       what was signed, and "status: signed" or "status: UNSIGNED"
#
# Authenticode, with a key that never leaves its hardware (code-signing certificates issued since
# June 2023 cannot be exported as a .pfx). One of:
#   Azure Trusted Signing (Artifact Signing) through signtool's dlib:
#     AZURE_SIGNING_ENDPOINT (https://<region>.codesigning.azure.net), AZURE_SIGNING_ACCOUNT,
#     AZURE_SIGNING_PROFILE (the certificate profile); the dlib signs in as DefaultAzureCredential
#     does (the workflow's azure/login, or AZURE_CLIENT_ID/AZURE_TENANT_ID/AZURE_CLIENT_SECRET).
#     AZURE_SIGNING_DLIB: path of Azure.CodeSigning.Dlib.dll (default: the NuGet package
#     Microsoft.ArtifactSigning.Client, version AZURE_SIGNING_CLIENT_VERSION, fetched with nuget.exe).
#   jsign against a cloud HSM or a PKCS#11 token:
#     JSIGN_STORETYPE (PKCS11, AZUREKEYVAULT, GOOGLECLOUD, AWS, DIGICERTONE, TRUSTEDSIGNING, ...),
#     JSIGN_KEYSTORE, JSIGN_ALIAS, JSIGN_STOREPASS (read by jsign from the environment, never on a
#     command line), JSIGN_CERTFILE (the certificate chain, when the store holds only the key),
#     JSIGN_JAR (jsign.jar run with java; default: `jsign` on PATH).
#   SIGNTOOL: signtool.exe to use (default: the newest Windows SDK one); WINDOWS_TIMESTAMP_URL: the RFC 3161
#   time-stamping server (default: Microsoft's for Trusted Signing, DigiCert's for jsign).
# Both executables, the uninstaller and the setup are signed (SHA-256 file digest, RFC 3161 timestamp
# with SHA-256; Inno Setup's SignTool signs the uninstaller and the setup) and each is checked with
# `signtool verify /pa` and for a timestamp. Without signing settings: unsigned, with a visible warning
# (SmartScreen will warn users); with RELEASE=1 that is an error, before anything is built.
# Every external command's exit code is checked; the installer is installed silently, self-tested,
# upgraded in place (a stale file in _internal must disappear), and uninstalled (the PATH entry, the
# ProgID, the Applications key and the "Open with" value must disappear).
$ErrorActionPreference = "Stop"
$Root = (Resolve-Path "$PSScriptRoot\..\..").Path
Set-Location $Root
$Version = (Select-String -Path inspector\__init__.py -Pattern '^__version__ = "(.+)"').Matches[0].Groups[1].Value
$Build = "$Root\build\packaging"

function Find-Iscc {
    # Inno Setup's compiler: on PATH, else where the Inno Setup 6 or 7 installer puts it (for all users or for
    # one; 32-bit and 64-bit Program Files). Returns $null when there is none.
    $onPath = (Get-Command iscc.exe -ErrorAction SilentlyContinue).Source
    if ($onPath) { return $onPath }
    foreach ($base in @(${env:ProgramFiles(x86)}, $env:ProgramFiles, "$env:LOCALAPPDATA\Programs")) {
        if (-not $base) { continue }
        foreach ($major in @("7", "6")) {
            $candidate = Join-Path $base "Inno Setup $major\ISCC.exe"
            if (Test-Path $candidate) { return $candidate }
        }
    }
    return $null
}

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

# 0. Signing (optional, except with RELEASE=1).
$Release = $env:RELEASE -eq "1"
$SignMode = $null
if ($env:AZURE_SIGNING_ENDPOINT -and $env:AZURE_SIGNING_ACCOUNT -and $env:AZURE_SIGNING_PROFILE) {
    $SignMode = "azure"
} elseif ($env:JSIGN_STORETYPE -and $env:JSIGN_ALIAS) {
    $SignMode = "jsign"
}
if (-not $SignMode) {
    $Text = "no signing settings (AZURE_SIGNING_* or JSIGN_*): the executables and the installer are NOT Authenticode-signed"
    if ($Release) {
        if ($env:GITHUB_ACTIONS) { Write-Output "::error title=Windows signing::$Text" }
        throw "RELEASE=1: $Text"
    }
    Write-CiWarning $Text
}
$SignTool = $env:SIGNTOOL
if ($SignMode -and -not $SignTool) {
    $SignTool = Get-ChildItem "${env:ProgramFiles(x86)}\Windows Kits\10\bin\10.*\x64\signtool.exe" |
        Sort-Object { [version]$_.Directory.Parent.Name } -Descending | Select-Object -First 1 -ExpandProperty FullName
}
if ($SignMode -and -not $SignTool) { throw "signtool.exe not found (install the Windows SDK, or set SIGNTOOL)" }
$TimestampUrl = $env:WINDOWS_TIMESTAMP_URL
$Dlib = $null
$Metadata = $null
if ($SignMode -eq "azure") {
    # the dlib needs signtool 10.0.22621.755 or later
    $Info = (Get-Item $SignTool).VersionInfo
    $SignToolVersion = [version]::new($Info.FileMajorPart, $Info.FileMinorPart, $Info.FileBuildPart, $Info.FilePrivatePart)
    if ($SignToolVersion -lt [version]"10.0.22621.755") { throw "$SignTool is $SignToolVersion; Trusted Signing needs 10.0.22621.755 or later" }
    if (-not $TimestampUrl) { $TimestampUrl = "http://timestamp.acs.microsoft.com" }
    $Dlib = $env:AZURE_SIGNING_DLIB
    if (-not $Dlib) {
        $ClientVersion = if ($env:AZURE_SIGNING_CLIENT_VERSION) { $env:AZURE_SIGNING_CLIENT_VERSION } else { "1.0.128" }
        Invoke-Checked "nuget install Microsoft.ArtifactSigning.Client" {
            nuget install Microsoft.ArtifactSigning.Client -Version $ClientVersion -OutputDirectory "$Build\signing-client" -NonInteractive }
        $Dlib = Get-ChildItem "$Build\signing-client" -Recurse -Filter Azure.CodeSigning.Dlib.dll |
            Where-Object { $_.Directory.Name -eq "x64" } | Select-Object -First 1 -ExpandProperty FullName
    }
    if (-not $Dlib -or -not (Test-Path $Dlib)) { throw "Azure.CodeSigning.Dlib.dll not found (set AZURE_SIGNING_DLIB)" }
    New-Item -ItemType Directory -Force $Build | Out-Null
    $Metadata = Join-Path $Build "trusted-signing-metadata.json"
    $Json = [ordered]@{ Endpoint = $env:AZURE_SIGNING_ENDPOINT; CodeSigningAccountName = $env:AZURE_SIGNING_ACCOUNT;
                        CertificateProfileName = $env:AZURE_SIGNING_PROFILE } | ConvertTo-Json
    [IO.File]::WriteAllText($Metadata, $Json)  # UTF-8 without a byte order mark
    $SignArgs = @("sign", "/v", "/fd", "SHA256", "/tr", $TimestampUrl, "/td", "SHA256", "/dlib", $Dlib, "/dmdf", $Metadata)
    $SignCommand = "`$q$SignTool`$q sign /v /fd SHA256 /tr $TimestampUrl /td SHA256 /dlib `$q$Dlib`$q /dmdf `$q$Metadata`$q `$f"
} elseif ($SignMode -eq "jsign") {
    if (-not $TimestampUrl) { $TimestampUrl = "http://timestamp.digicert.com" }
    $SignArgs = @("--storetype", $env:JSIGN_STORETYPE, "--alias", $env:JSIGN_ALIAS, "--alg", "SHA-256",
                  "--tsaurl", $TimestampUrl, "--tsmode", "RFC3161", "--replace")
    if ($env:JSIGN_KEYSTORE) { $SignArgs += @("--keystore", $env:JSIGN_KEYSTORE) }
    if ($env:JSIGN_STOREPASS) { $SignArgs += @("--storepass", "env:JSIGN_STOREPASS") }  # jsign reads the variable itself
    if ($env:JSIGN_CERTFILE) { $SignArgs += @("--certfile", $env:JSIGN_CERTFILE) }
    if ($env:JSIGN_JAR) {
        $Jsign = "java"
        $SignArgs = @("-jar", $env:JSIGN_JAR) + $SignArgs
        $SignCommand = "java -jar `$q$($env:JSIGN_JAR)`$q"
    } else {
        $Jsign = (Get-Command jsign -ErrorAction SilentlyContinue).Source
        if (-not $Jsign) { throw "jsign not found (choco install jsign, or set JSIGN_JAR)" }
        $SignCommand = "`$q$Jsign`$q"
    }
    # the same arguments for Inno Setup's sign tool (quoted: a keystore path may hold spaces)
    $Quoted = $SignArgs | Where-Object { $_ -ne "-jar" -and $_ -ne $env:JSIGN_JAR } | ForEach-Object { "`$q$_`$q" }
    $SignCommand = "$SignCommand $($Quoted -join ' ') `$f"
}
$Report = Join-Path $Root "dist\signing-windows.txt"
New-Item -ItemType Directory -Force (Split-Path $Report) | Out-Null
Set-Content -Path $Report -Value "mode: $(if ($SignMode) { $SignMode } else { 'none' })"

function Test-Signature([string]$Path) {
    # Authenticode chain to a trusted root (signtool's default policy /pa), and a timestamp
    Invoke-Checked "signtool verify $Path" { & $SignTool verify /pa /v $Path }
    $Signature = Get-AuthenticodeSignature -FilePath $Path
    if ($Signature.Status -ne "Valid") { throw "signature of $Path is $($Signature.Status)" }
    if (-not $Signature.TimeStamperCertificate) { throw "signature of $Path has no timestamp" }
    Add-Content -Path $Report -Value "signed: $(Split-Path -Leaf $Path) by $($Signature.SignerCertificate.Subject), timestamped by $($Signature.TimeStamperCertificate.Subject)"
}
function Sign-File([string]$Path) {
    if (-not $SignMode) { return }
    if ($SignMode -eq "azure") {
        Invoke-Checked "signtool sign $Path" { & $SignTool @SignArgs $Path }
    } else {
        Invoke-Checked "jsign $Path" { & $Jsign @SignArgs $Path }
    }
    Test-Signature $Path
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
    $Iscc = Find-Iscc
    if (-not $Iscc) {
        Invoke-Checked "choco install innosetup" { choco install innosetup -y --no-progress }
        $Iscc = Find-Iscc
        if (-not $Iscc) { throw "Inno Setup's ISCC.exe was not found after installing it (PATH, Inno Setup 6 or 7)" }
    }
    New-Item -ItemType Directory -Force dist | Out-Null
    $IsccArgs = @("/Qp", "/DAppVersion=$Version", "/DSourceDir=$Bundle", "/DOutputDir=$Root\dist",
                  "/DIconFile=$Root\resources\icons\checkpoint-inspector.ico")
    if ($SignMode) {
        # Inno Setup runs this for the uninstaller and for the setup itself ($f: the quoted file name)
        $IsccArgs += "/DSigned=1"
        $IsccArgs += "/Sci=$SignCommand"
    }
    Invoke-Checked "iscc" { & $Iscc @IsccArgs packaging\windows\checkpoint-inspector.iss }
    $Setup = "$Root\dist\CheckpointInspector-$Version-setup.exe"
    if ($SignMode) { Test-Signature $Setup }

    # 5. Install silently (with PATH) into a scratch folder and self-test the installed copy.
    $Target = if ($env:RUNNER_TEMP) { "$env:RUNNER_TEMP\ci-install" } else { "$env:TEMP\ci-install" }
    $InstallArgs = @("/VERYSILENT", "/SUPPRESSMSGBOXES", "/CURRENTUSER", "/NORESTART", "/DIR=$Target", "/TASKS=addtopath,openwith")
    Start-Checked "install" $Setup $InstallArgs
    Invoke-Checked "self-test (installed)" { & "$Target\checkpoint-inspector.exe" --self-test --require-gui }
    if (-not (Test-Path "$Target\_internal\licenses\THIRD-PARTY-NOTICES.txt")) { throw "licences missing from the installed copy" }
    $UserPath = [Environment]::GetEnvironmentVariable("Path", "User")
    if (-not ($UserPath -split ";" -contains $Target)) { throw "install did not add $Target to the user PATH" }
    if ($SignMode) { Test-Signature "$Target\unins000.exe" }  # signed by Inno Setup's sign tool

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
    if (Test-Path "HKCU:\Software\Classes\Applications\Checkpoint Inspector.exe") { throw "uninstall left the Applications key" }
    $OpenWith = Get-Item "HKCU:\Software\Classes\.json\OpenWithProgids" -ErrorAction SilentlyContinue
    if ($OpenWith -and ($OpenWith.GetValueNames() -contains "A3S.SessionCheckpoint.1")) { throw "uninstall left the Open with value" }

    Add-Content -Path $Report -Value "status: $(if ($SignMode) { 'signed' } else { 'UNSIGNED' })"
    Get-ChildItem dist | Format-Table -Property @("Name", "Length")
} finally {
    if ($Metadata -and (Test-Path $Metadata)) { Remove-Item -Force $Metadata }
}
