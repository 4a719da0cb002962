; Inno Setup 6 script for Checkpoint Inspector (NOT built on the Linux build machine; see build.ps1).
;   iscc /DAppVersion=<inspector.__version__> /DSourceDir=build\packaging\dist\checkpoint-inspector
;        /DOutputDir=dist /DIconFile=resources\icons\checkpoint-inspector.ico checkpoint-inspector.iss
;   optional: /DSigned=1 "/Sci=<sign command ... $f>" signs the uninstaller and the setup with the
;   sign tool named "ci" (build.ps1 does, and checks both signatures afterwards)
; Installs per user by default (support staff need no administrator rights); an administrator
; can choose "install for all users" in the first dialog.
#ifndef AppVersion
  #define AppVersion "0.0.0"
#endif

[Setup]
AppId={{6D3A0B5E-3C1F-4F7B-9C52-8E1A4B2D7C10}
AppName=Checkpoint Inspector
AppVersion={#AppVersion}
AppPublisher=A3S
AppComments=Verify and explain A3S Code portable session checkpoints
DefaultDirName={autopf}\Checkpoint Inspector
DefaultGroupName=Checkpoint Inspector
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog commandline
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
; Qt 6.11 supports Windows 10 1809 (build 17763) and later, x64
MinVersion=10.0.17763
OutputDir={#OutputDir}
OutputBaseFilename=CheckpointInspector-{#AppVersion}-setup
SetupIconFile={#IconFile}
UninstallDisplayIcon={app}\Checkpoint Inspector.exe
LicenseFile={#SourceDir}\_internal\licenses\LICENSE
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ChangesEnvironment=yes
ChangesAssociations=yes
CloseApplications=yes
#ifdef Signed
; "ci" is defined on iscc's command line by build.ps1 (/Sci=...): signtool with the Trusted Signing
; dlib, or jsign; it signs the uninstaller and then this setup. A cloud signing call can fail
; transiently: retried.
SignTool=ci
SignedUninstaller=yes
SignToolRetryCount=3
SignToolRetryDelay=5000
#endif

[Tasks]
Name: "desktopicon"; Description: "Create a &desktop shortcut"; GroupDescription: "Shortcuts:"
Name: "addtopath"; Description: "Add the checkpoint-inspector &command to PATH (for terminals and scripts)"; GroupDescription: "Command line:"; Flags: unchecked
Name: "openwith"; Description: "Offer Checkpoint Inspector in ""Open with"" for .json files (never the default)"; GroupDescription: "Files:"

[InstallDelete]
; An upgrade must not keep files of the previous version (stale Qt plugins or libraries would be
; loaded next to the new ones): the whole bundle folder is replaced.
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\Checkpoint Inspector"; Filename: "{app}\Checkpoint Inspector.exe"
Name: "{autoprograms}\Checkpoint Inspector - check installation"; Filename: "{cmd}"; Parameters: "/k ""{app}\checkpoint-inspector.exe"" --self-test --require-gui"; IconFilename: "{app}\Checkpoint Inspector.exe"
Name: "{autoprograms}\Checkpoint Inspector - licences"; Filename: "{app}\_internal\licenses\THIRD-PARTY-NOTICES.txt"
Name: "{autodesktop}\Checkpoint Inspector"; Filename: "{app}\Checkpoint Inspector.exe"; Tasks: desktopicon

[Registry]
; A ProgID of our own for checkpoints (the descriptor's media type). Windows chooses the
; program by the last extension, and a checkpoint is a .json file: so the ProgID is offered
; through .json's OpenWithProgids ("Open with" list) and never written as .json's default.
Root: HKA; Subkey: "Software\Classes\A3S.SessionCheckpoint.1"; ValueType: string; ValueName: ""; ValueData: "A3S Code session checkpoint"; Flags: uninsdeletekey; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\A3S.SessionCheckpoint.1"; ValueType: string; ValueName: "Content Type"; ValueData: "application/vnd.a3s.code.session-checkpoint.v1+json"; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\A3S.SessionCheckpoint.1\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: """{app}\Checkpoint Inspector.exe"",0"; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\A3S.SessionCheckpoint.1\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\Checkpoint Inspector.exe"" ""%1"""; Tasks: openwith
; .json and its OpenWithProgids belong to Windows and other programs: only our value goes, and
; each key only when nothing else is left in it (a user profile that had no .json key before).
Root: HKA; Subkey: "Software\Classes\.json"; Flags: uninsdeletekeyifempty; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\.json\OpenWithProgids"; ValueType: string; ValueName: "A3S.SessionCheckpoint.1"; ValueData: ""; Flags: uninsdeletevalue uninsdeletekeyifempty; Tasks: openwith
; Applications\<exe> is ours alone: the whole key goes (until round three only its SupportedTypes
; subkey did, and the key with FriendlyAppName stayed behind after an uninstall).
Root: HKA; Subkey: "Software\Classes\Applications\Checkpoint Inspector.exe"; ValueType: string; ValueName: "FriendlyAppName"; ValueData: "Checkpoint Inspector"; Flags: uninsdeletekey; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\Applications\Checkpoint Inspector.exe\SupportedTypes"; ValueType: string; ValueName: ".json"; ValueData: ""; Tasks: openwith
; PATH (per user, or machine-wide when installed for all users); removed again by the uninstaller
; (CurUninstallStepChanged below), since Inno Setup cannot delete one entry of a value by itself.
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Tasks: addtopath; Check: not IsAdminInstallMode and NeedsAddPath(ExpandConstant('{app}'))
Root: HKLM; Subkey: "SYSTEM\CurrentControlSet\Control\Session Manager\Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Tasks: addtopath; Check: IsAdminInstallMode and NeedsAddPath(ExpandConstant('{app}'))

[Run]
Filename: "{app}\Checkpoint Inspector.exe"; Description: "Open Checkpoint Inspector on the bundled sample"; Flags: nowait postinstall skipifsilent

[Code]
function PathRoot(): Integer;
begin
  if IsAdminInstallMode then Result := HKLM else Result := HKCU;
end;

function PathKey(): String;
begin
  if IsAdminInstallMode then
    Result := 'SYSTEM\CurrentControlSet\Control\Session Manager\Environment'
  else
    Result := 'Environment';
end;

function NeedsAddPath(Dir: string): Boolean;
var
  Path: string;
begin
  if not RegQueryStringValue(PathRoot(), PathKey(), 'Path', Path) then Path := '';
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Path) + ';') = 0;
end;

{ Remove every PATH entry equal to the install folder (case-insensitive, with or without a
  trailing backslash); other entries and their order are kept. }
procedure RemoveFromPath(Dir: string);
var
  Path, Entry, Kept: string;
  P: Integer;
begin
  if not RegQueryStringValue(PathRoot(), PathKey(), 'Path', Path) then exit;
  Kept := '';
  Path := Path + ';';
  while Length(Path) > 0 do
  begin
    P := Pos(';', Path);
    Entry := Copy(Path, 1, P - 1);
    Delete(Path, 1, P);
    if (Entry <> '') and (CompareText(RemoveBackslashUnlessRoot(Entry), RemoveBackslashUnlessRoot(Dir)) <> 0) then
    begin
      if Kept <> '' then Kept := Kept + ';';
      Kept := Kept + Entry;
    end;
  end;
  RegWriteExpandStringValue(PathRoot(), PathKey(), 'Path', Kept);
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
begin
  if CurUninstallStep = usPostUninstall then
    RemoveFromPath(ExpandConstant('{app}'));
end;
