; Inno Setup 6 script for Checkpoint Inspector (NOT built on the Linux build machine; see build.ps1).
;   iscc /DAppVersion=<inspector.__version__> /DSourceDir=build\packaging\dist\checkpoint-inspector
;        /DOutputDir=dist /DIconFile=resources\icons\checkpoint-inspector.ico checkpoint-inspector.iss
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
OutputDir={#OutputDir}
OutputBaseFilename=CheckpointInspector-{#AppVersion}-setup
SetupIconFile={#IconFile}
UninstallDisplayIcon={app}\Checkpoint Inspector.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ChangesEnvironment=yes
ChangesAssociations=yes

[Tasks]
Name: "desktopicon"; Description: "Create a &desktop shortcut"; GroupDescription: "Shortcuts:"
Name: "addtopath"; Description: "Add the checkpoint-inspector &command to PATH (for terminals and scripts)"; GroupDescription: "Command line:"; Flags: unchecked
Name: "openwith"; Description: "Offer Checkpoint Inspector in ""Open with"" for .json files"; GroupDescription: "Files:"

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\Checkpoint Inspector"; Filename: "{app}\Checkpoint Inspector.exe"
Name: "{autoprograms}\Checkpoint Inspector - check installation"; Filename: "{cmd}"; Parameters: "/k ""{app}\checkpoint-inspector.exe"" --self-test"; IconFilename: "{app}\Checkpoint Inspector.exe"
Name: "{autodesktop}\Checkpoint Inspector"; Filename: "{app}\Checkpoint Inspector.exe"; Tasks: desktopicon

[Registry]
; "Open with" entry for .json (never takes over the default program).
Root: HKA; Subkey: "Software\Classes\.json\OpenWithProgids"; ValueType: string; ValueName: "CheckpointInspector.json"; ValueData: ""; Flags: uninsdeletevalue; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\CheckpointInspector.json"; ValueType: string; ValueName: ""; ValueData: "A3S Code session checkpoint"; Flags: uninsdeletekey; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\CheckpointInspector.json\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: """{app}\Checkpoint Inspector.exe"",0"; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\CheckpointInspector.json\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\Checkpoint Inspector.exe"" ""%1"""; Tasks: openwith
; PATH (per user, or machine-wide when installed for all users).
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Tasks: addtopath; Check: not IsAdminInstallMode and NeedsAddPath(ExpandConstant('{app}'))
Root: HKLM; Subkey: "SYSTEM\CurrentControlSet\Control\Session Manager\Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Tasks: addtopath; Check: IsAdminInstallMode and NeedsAddPath(ExpandConstant('{app}'))

[Run]
Filename: "{app}\Checkpoint Inspector.exe"; Description: "Open Checkpoint Inspector on the bundled sample"; Flags: nowait postinstall skipifsilent

[Code]
function NeedsAddPath(Dir: string): Boolean;
var
  Path: string;
begin
  if IsAdminInstallMode then
    RegQueryStringValue(HKLM, 'SYSTEM\CurrentControlSet\Control\Session Manager\Environment', 'Path', Path)
  else
    RegQueryStringValue(HKCU, 'Environment', 'Path', Path);
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Path) + ';') = 0;
end;
