# Herald's staged installer for Windows (PowerShell 5.1 or 7). installers/README.md tells the whole story.
#
#   .\install.ps1                          # every stage in order (a full install)
#   .\install.ps1 -Manifest                # the stage list as one JSON object
#   .\install.ps1 -Stage repository -Json  # one stage; exactly one JSON frame on stdout
#
# The same protocol as install.sh: two modes (a git checkout pinned by -Commit over -Tag over
# -Branch, or release binaries from -ReleaseUrl verified against SHA256SUMS), one frame per stage,
# diagnostics on stderr, per-install state in $InstallDir\.install-state.
#
# Written for what Windows PowerShell 5.1 and PowerShell 7 both run the same way: no classes, git's
# `--` always quoted, native commands run with their arguments in an array.

[CmdletBinding()]
param(
  [switch]$Manifest,
  [string]$Stage,
  [switch]$Json,
  [switch]$NonInteractive,
  [string]$Commit = '',
  [string]$Tag = '',
  [string]$Branch = '',
  [switch]$ReplaceOrigin,
  [string]$ReleaseUrl = $env:HERALD_RELEASE_URL,
  [switch]$IncludeDesktop,
  [switch]$NoSkills,
  [string]$InstallDir = '',
  [string]$HeraldHome = '',
  [switch]$Help
)

$ErrorActionPreference = 'Stop'
$ProtocolVersion = 1
$DenoVersion = '2.9.6'
$MarkerName = '.herald-bootstrap-complete'
$StageGiven = $PSBoundParameters.ContainsKey('Stage')

# BEGIN GENERATED STAGES (from installers/stages.tsv: deno run -A installers/stages.ts --write)
$StageList = @(
  [ordered]@{ name = 'prerequisites'; title = 'System prerequisites'; category = 'runtime'; needsInput = $false; needs = @(); when = 'always' }
  [ordered]@{ name = 'repository'; title = 'Download Herald'; category = 'runtime'; needsInput = $false; needs = @('prerequisites'); when = 'always' }
  [ordered]@{ name = 'venv'; title = 'Python virtual environment (not needed)'; category = 'runtime'; needsInput = $false; needs = @(); when = 'always' }
  [ordered]@{ name = 'python-deps'; title = 'Python dependencies (not needed)'; category = 'runtime'; needsInput = $false; needs = @(); when = 'always' }
  [ordered]@{ name = 'node-deps'; title = 'Install npm dependencies'; category = 'runtime'; needsInput = $false; needs = @('repository'); when = 'always' }
  [ordered]@{ name = 'path'; title = 'Install the herald command'; category = 'runtime'; needsInput = $false; needs = @('node-deps'); when = 'always' }
  [ordered]@{ name = 'config'; title = 'Prepare the Herald home and skills'; category = 'configuration'; needsInput = $false; needs = @('path'); when = 'always' }
  [ordered]@{ name = 'setup'; title = 'Configure the model provider'; category = 'configuration'; needsInput = $true; needs = @('config'); when = 'always' }
  [ordered]@{ name = 'gateway'; title = 'Configure the gateway service'; category = 'configuration'; needsInput = $true; needs = @('config'); when = 'always' }
  [ordered]@{ name = 'desktop'; title = 'Desktop app'; category = 'runtime'; needsInput = $false; needs = @('repository'); when = 'desktop' }
  [ordered]@{ name = 'complete'; title = 'Finish install'; category = 'runtime'; needsInput = $false; needs = @('config'); when = 'always' }
)
# END GENERATED STAGES

$Usage = @'
Usage: install.ps1 [options]                   run every stage in order
       install.ps1 -Manifest [-IncludeDesktop]
       install.ps1 -Stage <name> [-Json] [options]

Options:
  -Manifest            print the stage list as one JSON object and exit
  -Stage <name>        run one stage; prints exactly one JSON result frame on stdout
  -Json                (full install) print a JSON frame per stage on stdout
  -NonInteractive      skip the stages that ask questions (setup, gateway)
  -Commit <sha>        pin the checkout to this commit (wins over -Tag and -Branch)
  -Tag <tag>           pin the checkout to this tag (wins over -Branch)
  -Branch <name>       follow this branch (default: the repository's default branch)
  -ReplaceOrigin       let the checkout's origin change to HERALD_REPO_URL (refused otherwise)
  -ReleaseUrl <base>   install release binaries from <base> (https; http only to 127.0.0.1/localhost)
  -IncludeDesktop      add the desktop stage
  -NoSkills            seed no bundled skills (writes .no-bundled-skills in the Herald home)
  -InstallDir <folder> where the code goes (HERALD_INSTALL_DIR; default ~\.herald\herald-agent)
  -HeraldHome <folder> the Herald home (HERALD_HOME; default ~\.herald)
  -Help                this text

Environment: HERALD_HOME, HERALD_INSTALL_DIR, HERALD_BIN_DIR (default %LOCALAPPDATA%\herald\bin),
HERALD_REPO_URL (default: the checkout this script is part of), HERALD_RELEASE_URL, HERALD_DENO.
'@

# --- output: diagnostics on stderr, JSON frames on stdout ---------------------------------------

function Say([string]$Text) { [Console]::Error.WriteLine("herald install: $Text") }

# $Value as JSON text (null, a boolean, an integer or a string). Everything outside printable ASCII is
# escaped, so a frame reads the same whatever code page the console uses.
function ConvertTo-JsonText($Value) {
  if ($null -eq $Value) { return 'null' }
  if ($Value -is [bool]) { if ($Value) { return 'true' } else { return 'false' } }
  if ($Value -is [int]) { return [string]$Value }
  $builder = [Text.StringBuilder]::new()
  [void]$builder.Append('"')
  foreach ($char in ([string]$Value).ToCharArray()) {
    $code = [int]$char
    if ($code -eq 34) { [void]$builder.Append('\"') }
    elseif ($code -eq 92) { [void]$builder.Append('\\') }
    elseif ($code -lt 32 -or $code -gt 126) { [void]$builder.Append(('\u{0:x4}' -f $code)) }
    else { [void]$builder.Append($char) }
  }
  [void]$builder.Append('"')
  return $builder.ToString()
}

# An ordered dictionary as one JSON object on one line.
function Format-JsonObject($Fields) {
  $parts = @(foreach ($key in $Fields.Keys) { (ConvertTo-JsonText $key) + ':' + (ConvertTo-JsonText $Fields[$key]) })
  return '{' + ($parts -join ',') + '}'
}

# The frame of the stage that runs: whether one is owed (-Stage, or -Json in a full install), whether
# it went out, and the details the stage adds to it.
$script:FrameOwed = $false
$script:FrameSent = $false
$script:CurrentStage = ''
$script:Details = [ordered]@{}
$script:TempPaths = @()

function Detail([string]$Key, $Value) { $script:Details[$Key] = $Value }

# Prints one result frame on stdout: ok, stage, skipped, reason and the stage's details.
function Send-Frame([bool]$Ok, [string]$Name, [bool]$Skipped, [string]$Reason) {
  $frame = [ordered]@{ ok = $Ok; stage = $Name; skipped = $Skipped; reason = $null }
  if ($Reason) { $frame['reason'] = $Reason }
  foreach ($key in $script:Details.Keys) { $frame[$key] = $script:Details[$key] }
  $script:FrameSent = $true
  [Console]::Out.WriteLine((Format-JsonObject $frame))
}

# Ends the stage with ok:false and $Reason, or with ok:true, skipped:true and $Reason. A plain
# exception with a marker in Data, so Windows PowerShell 5.1 and PowerShell 7 catch it alike.
function Fail([string]$Reason) { Stop-Stage 'fail' $Reason }
function Skip([string]$Reason) { Stop-Stage 'skip' $Reason }
function Stop-Stage([string]$Kind, [string]$Reason) {
  $exception = [System.Exception]::new($Reason)
  $exception.Data['herald'] = $Kind
  throw $exception
}

# What a caught exception means for the stage: @{ Kind = 'fail' or 'skip'; Reason }. Anything not
# thrown by Fail or Skip is a failure with its own message.
function Get-StageOutcome([System.Exception]$Exception) {
  for ($inner = $Exception; $null -ne $inner; $inner = $inner.InnerException) {
    $kind = $inner.Data['herald']
    if ($kind -eq 'fail' -or $kind -eq 'skip') { return @{ Kind = [string]$kind; Reason = $inner.Message } }
  }
  return @{ Kind = 'fail'; Reason = "unexpected error: $($Exception.Message)" }
}

# A folder the stage works in; removed when the stage ends, however it ends.
function New-TempFolder([string]$Path) {
  $script:TempPaths += $Path
  if (Test-Path -LiteralPath $Path) { Remove-Item -LiteralPath $Path -Recurse -Force }
  New-Item -ItemType Directory -Force -Path $Path | Out-Null
}

function Remove-TempFolders {
  foreach ($path in $script:TempPaths) {
    if (Test-Path -LiteralPath $path) { Remove-Item -LiteralPath $path -Recurse -Force -ErrorAction SilentlyContinue }
  }
  $script:TempPaths = @()
}

# --- native commands ----------------------------------------------------------------------------

# Runs $Program with $Arguments, its output on stderr; returns its exit code. (Windows PowerShell
# turns a native command's stderr into errors, so errors only continue here.)
function Invoke-Logged([string]$Program, [string[]]$Arguments) {
  if (-not (Test-Command $Program)) { Fail "$Program is not found; run the ""prerequisites"" stage again" }
  $ErrorActionPreference = 'Continue'
  & $Program @Arguments 2>&1 | ForEach-Object { [Console]::Error.WriteLine("$_") }
  return $LASTEXITCODE
}

# Runs $Program with $Arguments for the person at the terminal; returns its exit code. Its stderr,
# where Herald asks its questions, stays the console's (a prompt shows before its line ends); its
# stdout goes to stderr, like install.sh's `>&2`. Errors only continue here too: Windows PowerShell
# 5.1 with the installer's stderr redirected makes the program's stderr error records, which
# 'Stop' would turn into an "unexpected error" that ends the stage.
function Invoke-Console([string]$Program, [string[]]$Arguments) {
  if (-not (Test-Command $Program)) { Fail "$Program is not found; run the ""path"" stage again" }
  $ErrorActionPreference = 'Continue'
  & $Program @Arguments | ForEach-Object { [Console]::Error.WriteLine("$_") }
  return $LASTEXITCODE
}

# Like Invoke-Logged; fails the stage with $What when the command exits non-zero.
function Invoke-Native([string]$What, [string]$Program, [string[]]$Arguments) {
  $code = Invoke-Logged $Program $Arguments
  if ($code -ne 0) { Fail "$What (exit code $code)" }
}

# The stdout lines of git with $Arguments (its stderr dropped); $LASTEXITCODE tells how it ended.
function Get-GitOutput([string[]]$Arguments) {
  $ErrorActionPreference = 'Continue'
  & git @Arguments 2>$null
}

function Test-GitSucceeds([string[]]$Arguments) {
  Get-GitOutput $Arguments | Out-Null
  return $LASTEXITCODE -eq 0
}

function Test-Command([string]$Name) { [bool](Get-Command $Name -ErrorAction SilentlyContinue) }

# --- arguments and layout -----------------------------------------------------------------------

# Whether $Name is a ref name git accepts as a branch (never one that reads as an option).
function Test-RefName([string]$Name) {
  if (-not $Name -or $Name.StartsWith('-')) { return $false }
  if (Test-Command 'git') { return (Test-GitSucceeds @('check-ref-format', '--branch', $Name)) }
  return $true
}

# The usage error in the arguments, or ''. Pins are checked before git ever sees them, so none can
# be read as an option.
function Get-ArgumentError {
  if ($Commit -and ($Commit -cnotmatch '^[0-9a-f]{7,40}$')) { return "-Commit ""$Commit"" is not a commit hash (7 to 40 of 0-9a-f)" }
  if ($Tag -and -not (Test-RefName $Tag)) { return "-Tag ""$Tag"" is not a valid tag name" }
  if ($Branch -and -not (Test-RefName $Branch)) { return "-Branch ""$Branch"" is not a valid branch name" }
  $userHome = Get-UserHome
  if (-not $userHome -and (-not ($HeraldHome -or $env:HERALD_HOME) -or -not ($env:HERALD_BIN_DIR -or $env:LOCALAPPDATA))) {
    return 'neither HOME nor USERPROFILE is set; set one, or set HERALD_HOME and HERALD_BIN_DIR'
  }
  return ''
}

function Get-UserHome { if ($env:HOME) { return $env:HOME } else { return $env:USERPROFILE } }

# $Path as an absolute path, relative to the folder the installer started in (a stage changes folder).
function Get-AbsolutePath([string]$Path) {
  $here = (Get-Location -PSProvider FileSystem).ProviderPath
  return [IO.Path]::GetFullPath([IO.Path]::Combine($here, $Path))
}

# Sets the folders every stage uses, all absolute: $HeraldHome, $InstallDir, $BinDir, $StateDir.
function Initialize-Layout {
  $homeBase = Get-UserHome
  if (-not $homeBase) { $homeBase = '.' } # only when Get-ArgumentError stops the run
  if (-not $script:HeraldHome) { $script:HeraldHome = if ($env:HERALD_HOME) { $env:HERALD_HOME } else { Join-Path $homeBase '.herald' } }
  if (-not $script:InstallDir) { $script:InstallDir = if ($env:HERALD_INSTALL_DIR) { $env:HERALD_INSTALL_DIR } else { Join-Path $script:HeraldHome 'herald-agent' } }
  $bin = if ($env:HERALD_BIN_DIR) { $env:HERALD_BIN_DIR } elseif ($env:LOCALAPPDATA) { Join-Path $env:LOCALAPPDATA 'herald\bin' } else { Join-Path $homeBase '.local\bin' }
  $script:HeraldHome = Get-AbsolutePath $script:HeraldHome
  $script:InstallDir = Get-AbsolutePath $script:InstallDir
  $script:BinDir = Get-AbsolutePath $bin
  $script:StateDir = Join-Path $script:InstallDir '.install-state'
  $env:HERALD_HOME = $script:HeraldHome
  $script:ScriptCheckout = ''
  if ($PSScriptRoot) {
    $parent = Split-Path -Parent $PSScriptRoot
    if ((Test-Path (Join-Path $parent 'cli\main.ts')) -and (Test-Path (Join-Path $parent '.git'))) { $script:ScriptCheckout = $parent }
  }
}

# --- per-install state --------------------------------------------------------------------------

# The value recorded under $Key, or '' when the file is missing or empty (UTF-8, as Set-State writes).
function Get-State([string]$Key) {
  $file = Join-Path $StateDir $Key
  if (-not (Test-Path -LiteralPath $file -PathType Leaf)) { return '' }
  return ([string][IO.File]::ReadAllText($file)).Trim()
}

# Writes $Path atomically (a temporary file, then a rename), UTF-8 without a byte-order mark.
function Write-TextFile([string]$Path, [string]$Text) {
  [IO.File]::WriteAllText("$Path.tmp", $Text, [Text.UTF8Encoding]::new($false))
  Move-Item -Force -LiteralPath "$Path.tmp" -Destination $Path
}

function Set-State([string]$Key, [string]$Value) {
  New-Item -ItemType Directory -Force -Path $StateDir | Out-Null
  Write-TextFile (Join-Path $StateDir $Key) "$Value`n"
}

function Get-InstallMode {
  $mode = Get-State 'mode'
  if ($mode) { return $mode }
  if ($ReleaseUrl) { return 'binary' }
  return 'git'
}

function Get-HeraldCommand {
  $cmd = Get-State 'herald'
  if (-not $cmd -or -not (Test-Path -LiteralPath $cmd)) { Fail 'no herald command is installed; run the "path" stage first' }
  return $cmd
}

function Get-Sha256([string]$Path) { return (Get-FileHash -Algorithm SHA256 -LiteralPath $Path).Hash.ToLower() }

# --- release downloads --------------------------------------------------------------------------

# Whether $Url may serve release files: https, or plain http to this machine (tests serve there).
function Test-ReleaseUrl([string]$Url) {
  if ($Url -cmatch '^https://') { return $true }
  return $Url -match '^http://(127\.[0-9.]+|localhost|\[::1\])(:[0-9]+)?(/|$)'
}

function Assert-ReleaseUrl([string]$Url) {
  if (-not (Test-ReleaseUrl $Url)) { Fail "the release URL $Url is not https; only https (or http to 127.0.0.1) is accepted" }
}

# The URL a response finally came from (after redirects), in Windows PowerShell 5.1 and in 7.
function Get-ResponseUrl($Response) {
  $base = $Response.BaseResponse
  if ($null -eq $base) { return '' }
  if ($base.ResponseUri) { return [string]$base.ResponseUri }
  if ($base.RequestMessage) { return [string]$base.RequestMessage.RequestUri }
  return ''
}

# Downloads $Url to $Path; a redirect that left https (or loopback http) is refused and its file
# removed. PowerShell 7 already refuses https-to-http redirects; 5.1 is checked after the fact.
function Save-Download([string]$Url, [string]$Path) {
  $ProgressPreference = 'SilentlyContinue' # Windows PowerShell's progress bar slows a download many times over
  [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12
  try {
    $response = Invoke-WebRequest -UseBasicParsing -Uri $Url -OutFile $Path -PassThru
  } catch {
    Fail "cannot download ${Url}: $($_.Exception.Message)"
  }
  $final = Get-ResponseUrl $response
  if ($final -and -not (Test-ReleaseUrl $final)) {
    Remove-Item -Force -LiteralPath $Path -ErrorAction SilentlyContinue
    Fail "$Url redirected to $final, which is not https; refusing it"
  }
}

# The expected hash of file $Name in the SHA256SUMS file $SumsFile (`<hex>  <name>` or `<hex> *<name>`).
function Get-ListedSum([string]$Name, [string]$SumsFile) {
  foreach ($line in Get-Content -LiteralPath $SumsFile) {
    $parts = $line -split '\s+', 2
    if ($parts.Count -eq 2 -and ($parts[1] -ceq $Name -or $parts[1] -ceq "*$Name")) { return $parts[0].ToLower() }
  }
  return ''
}

# Refuses $File in the folder $Work unless SHA256SUMS lists it with exactly its hash.
function Assert-Listed([string]$Work, [string]$File, [string]$Base) {
  $expected = Get-ListedSum $File (Join-Path $Work 'SHA256SUMS')
  if (-not $expected) { Fail "SHA256SUMS at $Base does not list $File; refusing to install an unverified file" }
  $actual = Get-Sha256 (Join-Path $Work $File)
  if ($expected -ne $actual) { Fail "checksum mismatch for ${File}: SHA256SUMS says $expected, the download is $actual; refusing to install it" }
}

function Get-ReleaseAsset {
  $arch = $env:PROCESSOR_ARCHITECTURE
  if ($arch -eq 'AMD64' -or $arch -eq 'x86_64') { return 'herald-windows-x86_64.exe' }
  Fail "no Herald release binary for Windows on $arch; install from a git checkout instead"
}

# --- the checkout -------------------------------------------------------------------------------

function Get-RepositoryUrl {
  $url = if ($env:HERALD_REPO_URL) { $env:HERALD_REPO_URL } else { Get-State 'repo-url' }
  if (-not $url) { $url = $ScriptCheckout }
  if (-not $url) { Fail 'set HERALD_REPO_URL to the Herald git repository, or pass -ReleaseUrl for release binaries' }
  if ($url.StartsWith('-')) { Fail "the repository URL $url starts with ""-""; give a URL or an absolute path" }
  return $url
}

# A folder without a checkout may hold only the installer's and the resolver's own files.
function Assert-NothingForeign {
  $own = @('.install-state', '.herald-bootstrap-failed', '.herald-bootstrap.lock')
  $others = @(Get-ChildItem -Force -LiteralPath $InstallDir | Where-Object { $own -notcontains $_.Name })
  if ($others.Count -gt 0) { Fail "$InstallDir holds files but no git checkout; move them away or choose another HERALD_INSTALL_DIR" }
}

# Points origin at $Url (in a new checkout after git init). Another origin is switched only with
# -ReplaceOrigin; then the old URL is returned, so a failed fetch can put it back.
function Connect-Origin([string]$Url) {
  if (-not (Test-Path -LiteralPath (Join-Path $InstallDir '.git'))) {
    Assert-NothingForeign
    Invoke-Native "git init failed in $InstallDir" 'git' @('init', '-q')
    Invoke-Native "git remote add origin $Url failed" 'git' @('remote', 'add', '--', 'origin', $Url)
    return ''
  }
  $current = [string](Get-GitOutput @('remote', 'get-url', 'origin') | Select-Object -First 1)
  if (-not $current) {
    Invoke-Native "git remote add origin $Url failed" 'git' @('remote', 'add', '--', 'origin', $Url)
    return ''
  }
  if ($current -ceq $Url) { return '' }
  if (-not $ReplaceOrigin -and (Test-GitSucceeds @('rev-parse', '-q', '--verify', 'HEAD'))) {
    Fail "the checkout in $InstallDir comes from $current, not $Url; pass -ReplaceOrigin to switch it, or set HERALD_REPO_URL=$current"
  }
  Say "the checkout's origin becomes $Url"
  Invoke-Native "cannot set the checkout's origin to $Url" 'git' @('remote', 'set-url', '--', 'origin', $Url)
  return $current
}

# Keeps the installer's and the resolver's files out of `git status`, so the tree stays clean.
function Add-GitExcludes {
  $exclude = Join-Path $InstallDir '.git\info\exclude'
  New-Item -ItemType Directory -Force -Path (Split-Path -Parent $exclude) | Out-Null
  $lines = if (Test-Path -LiteralPath $exclude) { @(Get-Content -LiteralPath $exclude) } else { @() }
  foreach ($entry in @('/.install-state/', "/$MarkerName", '/.install_method', '/.herald-bootstrap-failed', '/.herald-bootstrap.lock')) {
    if ($lines -notcontains $entry) { Add-Content -LiteralPath $exclude -Value $entry }
  }
}

# The first few of $Commits, for a reason a person reads.
function Format-Commits([string[]]$Commits) {
  $shown = @($Commits | Select-Object -First 3 | ForEach-Object { $_.Substring(0, [Math]::Min(12, $_.Length)) })
  if ($Commits.Count -gt 3) { $shown += "and $($Commits.Count - 3) more" }
  return $shown -join ', '
}

# Refuses to move the checkout to $Target when that would lose work: uncommitted changes to tracked
# files, commits of local branches that no remote holds, or commits of a detached HEAD that no
# branch holds. Commits $Target contains (a fast-forward), or that a tip of origin held before this
# fetch ($Known), are not lost.
function Assert-NoLocalWork([string]$Target, [string[]]$Known) {
  if (-not (Test-GitSucceeds @('rev-parse', '-q', '--verify', 'HEAD'))) { return } # a new checkout
  $changes = @(Get-GitOutput @('status', '--porcelain', '--untracked-files=no'))
  if ($LASTEXITCODE -ne 0 -or $changes.Count -gt 0) {
    Fail "$InstallDir has uncommitted changes; commit or discard them (git -C ""$InstallDir"" status), then run this stage again"
  }
  $safe = @('--not', '--remotes', '--tags', $Target) + @($Known | Where-Object { $_ })
  $unpushed = @(Get-GitOutput (@('rev-list', '--branches') + $safe))
  if ($LASTEXITCODE -ne 0) { Fail "cannot tell whether $InstallDir holds local commits (git rev-list failed); run this stage again" }
  if ($unpushed.Count -gt 0) {
    Fail "$InstallDir has local commits on no remote ($(Format-Commits $unpushed)) that the install would lose; push them or move them to another clone (git -C ""$InstallDir"" log --branches --not --remotes), then run this stage again"
  }
  if (Test-GitSucceeds @('symbolic-ref', '-q', 'HEAD')) { return }
  $orphans = @(Get-GitOutput (@('rev-list', 'HEAD', '--not', '--branches', '--remotes', '--tags', $Target) + @($Known | Where-Object { $_ })))
  if ($LASTEXITCODE -ne 0) { Fail "cannot tell whether $InstallDir holds local commits (git rev-list failed); run this stage again" }
  if ($orphans.Count -gt 0) {
    Fail "$InstallDir has commits on a detached HEAD that no branch holds ($(Format-Commits $orphans)); keep them on a branch (git -C ""$InstallDir"" branch <name>) and push it, then run this stage again"
  }
}

# The commit to check out for the pin (-Commit over -Tag over the branch), or a failed stage.
function Resolve-Pin([string]$Url, [string]$PinBranch) {
  if ($Commit) {
    if (-not (Test-GitSucceeds @('cat-file', '-e', "$($Commit)^{commit}"))) { Invoke-Logged 'git' @('fetch', '-q', '--', 'origin', $Commit) | Out-Null }
    $target = [string](Get-GitOutput @('rev-parse', '-q', '--verify', "$($Commit)^{commit}") | Select-Object -First 1)
    if (-not $target) { Fail "commit $Commit is not in $Url" }
    return $target
  }
  if ($Tag) {
    $target = [string](Get-GitOutput @('rev-parse', '-q', '--verify', "refs/tags/$($Tag)^{commit}") | Select-Object -First 1)
    if (-not $target) { Fail "tag $Tag is not in $Url" }
    return $target
  }
  $target = [string](Get-GitOutput @('rev-parse', '-q', '--verify', "refs/remotes/origin/$($PinBranch)^{commit}") | Select-Object -First 1)
  if (-not $target) { Fail "branch $PinBranch is not in $Url" }
  return $target
}

# repository, checkout mode: Herald's source, fetched from HERALD_REPO_URL into the install folder and
# checked out at the pin; never over local work, never from another origin without -ReplaceOrigin.
function Repository-Git {
  $url = Get-RepositoryUrl
  Set-Location -LiteralPath $InstallDir
  $oldUrl = Connect-Origin $url
  Add-GitExcludes
  $known = @(Get-GitOutput @('for-each-ref', '--format=%(objectname)', 'refs/remotes/origin', 'refs/tags'))
  Say "fetching $url"
  $fetched = Invoke-Logged 'git' @('fetch', '-q', '--tags', '--force', 'origin', '+refs/heads/*:refs/remotes/origin/*')
  if ($fetched -ne 0) {
    if ($oldUrl) { Invoke-Logged 'git' @('remote', 'set-url', '--', 'origin', $oldUrl) | Out-Null }
    Fail "git fetch from $url failed; check the address and your network"
  }
  Set-State 'repo-url' $url
  $default = ''
  foreach ($line in (Get-GitOutput @('ls-remote', '--symref', 'origin', 'HEAD'))) {
    if ($line -match '^ref: refs/heads/(.+)\s+HEAD$') { $default = $Matches[1] }
  }
  $pinBranch = if ($Branch) { $Branch } elseif ($default) { $default } else { 'main' }
  if (-not (Test-RefName $pinBranch)) { Fail "the remote's default branch ""$pinBranch"" is not a valid branch name; pass -Branch" }
  $target = Resolve-Pin $url $pinBranch
  Assert-NoLocalWork $target $known
  if ($Commit -or $Tag) {
    $what = if ($Commit) { $target } else { "tag $Tag" }
    Invoke-Native "git checkout of $what failed (local changes in $($InstallDir)?)" 'git' @('checkout', '-q', '--detach', $target, '--')
    if ($Commit) { Detail 'pin' 'commit' } else { Detail 'pin' 'tag'; Detail 'tag' $Tag }
  } else {
    Invoke-Native "git checkout of branch $pinBranch failed (local changes in $($InstallDir)?)" 'git' @('checkout', '-q', '-B', $pinBranch, "refs/remotes/origin/$pinBranch", '--')
    Detail 'pin' 'branch'
  }
  $head = [string](Get-GitOutput @('rev-parse', 'HEAD') | Select-Object -First 1)
  Set-State 'pinned-commit' $head
  Set-State 'pinned-branch' $pinBranch
  Detail 'commit' $head
  Detail 'branch' $pinBranch
}

# repository, binary mode: Herald's release binary and its install-stamp.json, each verified against
# the release's SHA256SUMS before anything is installed; the stamp names the commit.
function Repository-Binary {
  $base = if ($ReleaseUrl) { $ReleaseUrl } else { Get-State 'release-url' }
  if (-not $base) { Fail 'no release URL; pass -ReleaseUrl <base> to the prerequisites stage' }
  $base = $base.TrimEnd('/')
  Assert-ReleaseUrl $base
  $asset = Get-ReleaseAsset
  $work = Join-Path $StateDir 'download'
  New-TempFolder $work
  Say "downloading $base/$asset"
  foreach ($file in @('SHA256SUMS', $asset, 'install-stamp.json')) { Save-Download "$base/$file" (Join-Path $work $file) }
  foreach ($file in @($asset, 'install-stamp.json')) { Assert-Listed $work $file $base }
  $stamp = Get-Content -Raw -LiteralPath (Join-Path $work 'install-stamp.json') | ConvertFrom-Json
  $stampCommit = [string]$stamp.commit
  if ($stampCommit.Length -lt 7) { Fail "the release's install-stamp.json names no commit" }
  if ($Commit -and -not $stampCommit.StartsWith($Commit)) { Fail "the release at $base is commit $stampCommit, not the pinned $Commit" }
  Invoke-Native "the downloaded $asset does not run on this machine" (Join-Path $work $asset) @('--version')
  $binHome = Join-Path $InstallDir 'bin'
  New-Item -ItemType Directory -Force -Path $binHome | Out-Null
  Move-Item -Force -LiteralPath (Join-Path $work $asset) -Destination (Join-Path $binHome 'herald.exe')
  Move-Item -Force -LiteralPath (Join-Path $work 'install-stamp.json') -Destination (Join-Path $InstallDir 'install-stamp.json')
  $pinBranch = if ($Branch) { $Branch } elseif ($stamp.branch) { [string]$stamp.branch } else { 'main' }
  Set-State 'pinned-commit' $stampCommit
  Set-State 'pinned-branch' $pinBranch
  Detail 'asset' $asset
  Detail 'commit' $stampCommit
  Detail 'branch' $pinBranch
}

# --- the herald command -------------------------------------------------------------------------

# Whether the file at $Path is a link (symbolic link or junction).
function Test-Link([string]$Path) {
  $item = Get-Item -Force -LiteralPath $Path -ErrorAction SilentlyContinue
  return ($null -ne $item) -and [bool]$item.LinkType
}

# Refuses a link at $Path that points anywhere but into the install folder.
function Assert-LinkIntoInstall([string]$Path) {
  $item = Get-Item -Force -LiteralPath $Path
  $points = [string]($item.Target | Select-Object -First 1)
  if (-not [IO.Path]::IsPathRooted($points)) { $points = Join-Path (Split-Path -Parent $Path) $points }
  $points = [IO.Path]::GetFullPath($points)
  $inside = $InstallDir.TrimEnd('\', '/') + [IO.Path]::DirectorySeparatorChar
  if (-not $points.StartsWith($inside, [StringComparison]::OrdinalIgnoreCase)) {
    Fail "$Path is a link to $points, not into $InstallDir; move it away or set HERALD_BIN_DIR to another folder"
  }
}

# Whether $Path is a herald.exe this installer put there: the hash it recorded, or the binary now installed.
function Test-OwnBinary([string]$Path, [string]$Installed) {
  $hash = Get-Sha256 $Path
  if ($hash -eq (Get-State 'bin-sha256')) { return $true }
  return (Test-Path -LiteralPath $Installed) -and ($hash -eq (Get-Sha256 $Installed))
}

# Whether $Path is a herald.cmd launcher this installer wrote (it carries the herald-launcher line).
function Test-OwnLauncher([string]$Path) {
  return [bool](Select-String -LiteralPath $Path -SimpleMatch -Quiet -Pattern 'rem herald-launcher: ')
}

# Refuses a herald.cmd at $Command that this installer did not write (a link, or no herald-launcher line).
function Assert-OwnLauncher([string]$Command) {
  if ((Test-Link $Command) -or ((Test-Path -LiteralPath $Command) -and -not (Test-OwnLauncher $Command))) {
    Fail "$Command is not Herald's; move it away or set HERALD_BIN_DIR to another folder"
  }
}

# Binary mode: writes herald.cmd, which runs the installed $InstallDir\bin\herald.exe. No copy of the
# binary goes to $BinDir: `herald update` knows a release install only by the install-stamp.json one
# folder above the binary it runs, and replaces that binary. A herald.exe there from an earlier run
# (the hash recorded in bin-sha256, or the binary now installed) would win over herald.cmd on the
# PATH and stay old, so it is removed; a link there into the install folder too. A foreign herald.exe
# or herald.cmd is refused, never replaced, and nothing is changed before both are checked.
function Install-BinaryCommand {
  $target = Join-Path $InstallDir 'bin\herald.exe'
  if (-not (Test-Path -LiteralPath $target)) { Fail "$target is missing; run the ""repository"" stage first" }
  $command = Join-Path $BinDir 'herald.cmd'
  Assert-OwnLauncher $command
  $copy = Join-Path $BinDir 'herald.exe'
  $oldCopy = $false
  if (Test-Link $copy) {
    Assert-LinkIntoInstall $copy
    $oldCopy = $true
  } elseif (Test-Path -LiteralPath $copy) {
    if (-not (Test-OwnBinary $copy $target)) {
      Fail "$copy is not Herald's and would run instead of $command; move it away or set HERALD_BIN_DIR to another folder"
    }
    $oldCopy = $true
  }
  if ($oldCopy) {
    try {
      Remove-Item -Force -LiteralPath $copy
    } catch {
      Fail "cannot remove the old copy ${copy}: $($_.Exception.Message); end every herald that runs from it (herald gateway stop), then run the ""path"" stage again"
    }
    Say "removed the old copy $copy; $command runs $target now"
  }
  # In a batch file %% is a literal %, so a folder name holding % is not read as a variable.
  $text = "@echo off`r`nrem herald-launcher: herald`r`n""$($target.Replace('%', '%%'))"" %*`r`n"
  Write-TextFile $command $text
  return $command
}

# Checkout mode: writes herald.cmd, which runs the checkout with the recorded Deno. A herald.cmd
# that is not Herald's is refused; so is a foreign herald.exe beside it (it would win on the PATH).
function Install-CheckoutCommand {
  $deno = Get-State 'deno'
  if (-not $deno) { Fail 'no Deno recorded; run the "prerequisites" stage first' }
  $command = Join-Path $BinDir 'herald.cmd'
  Assert-OwnLauncher $command
  $binary = Join-Path $BinDir 'herald.exe'
  if ((Test-Path -LiteralPath $binary) -and -not (Test-Link $binary)) {
    if (-not (Test-OwnBinary $binary (Join-Path $InstallDir 'bin\herald.exe'))) {
      Fail "$binary is not Herald's and would run instead of $command; move it away or set HERALD_BIN_DIR to another folder"
    }
    Remove-Item -Force -LiteralPath $binary
  }
  $text = "@echo off`r`nrem herald-launcher: herald`r`nset DENO_NO_UPDATE_CHECK=1`r`n" +
    """$deno"" run --allow-all --config ""$InstallDir\deno.json"" ""$InstallDir\cli\main.ts"" %*`r`n"
  Write-TextFile $command $text
  return $command
}

# Whether the PATH-style $List (entries split by ;) holds $Folder, an entry's %VARS% expanded, its
# quotes and a trailing \ dropped (PowerShell's -eq ignores case, as Windows paths do).
function Test-PathListHolds([string]$List, [string]$Folder) {
  $want = $Folder.TrimEnd('\')
  foreach ($entry in ($List -split ';')) {
    if (-not $entry) { continue }
    if ([Environment]::ExpandEnvironmentVariables($entry).Trim('"').TrimEnd('\') -eq $want) { return $true }
  }
  return $false
}

# Adds $BinDir to the user's PATH (HKCU\Environment, value Path) when it is on neither the session's
# nor the user's; returns whether the session's PATH has it. The value is read and written as
# stored: entries such as %USERPROFILE%\bin stay unexpanded, and it stays REG_EXPAND_SZ (or becomes
# it when it holds a %); a value of any other kind is left alone. Then the "Environment" change is
# broadcast (WM_SETTINGCHANGE), so programs started from Explorer see the new PATH, as the .NET call
# this replaced did: .NET broadcasts it after deleting a user variable, and deleting one that does not
# exist changes nothing else.
function Add-UserPath {
  $onPath = Test-PathListHolds $env:Path $BinDir
  $key = Get-Item -LiteralPath 'HKCU:\Environment' -ErrorAction SilentlyContinue
  $userPath = ''
  $kind = [Microsoft.Win32.RegistryValueKind]::String
  if ($null -ne $key -and ($key.GetValueNames() -contains 'Path')) {
    $userPath = [string]$key.GetValue('Path', '', 'DoNotExpandEnvironmentNames')
    $kind = $key.GetValueKind('Path')
  }
  if ($onPath -or (Test-PathListHolds $userPath $BinDir)) { return $onPath }
  if ($kind -ne [Microsoft.Win32.RegistryValueKind]::String -and $kind -ne [Microsoft.Win32.RegistryValueKind]::ExpandString) {
    Say "your user PATH (HKCU\Environment) is a $kind value, which this installer does not change; add $BinDir to it yourself"
    return $onPath
  }
  $value = (@($userPath.TrimEnd(';'), $BinDir) | Where-Object { $_ }) -join ';'
  if ($value.Contains('%')) { $kind = [Microsoft.Win32.RegistryValueKind]::ExpandString }
  $writable = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment')
  try { $writable.SetValue('Path', $value, $kind) } finally { $writable.Close() }
  [Environment]::SetEnvironmentVariable('HERALD_INSTALLER_NO_SUCH_VARIABLE', $null, 'User')
  Say "added $BinDir to your user PATH; open a new terminal to use herald"
  return $onPath
}

# --- the stages -------------------------------------------------------------------------------

# prerequisites: what Herald needs to be fetched and run. Checkout mode: git and Deno 2.9.6
# (HERALD_DENO, a deno 2.9.6 on the PATH, else npx fetches it). Binary mode: an acceptable release URL.
function Stage-Prerequisites {
  New-Item -ItemType Directory -Force -Path $StateDir | Out-Null
  if ($ReleaseUrl) {
    Assert-ReleaseUrl $ReleaseUrl
    Set-State 'mode' 'binary'
    Set-State 'release-url' $ReleaseUrl
    Detail 'mode' 'binary'
    return
  }
  if (-not (Test-Command 'git')) { Fail 'git is not installed; install Git for Windows (or use -ReleaseUrl for release binaries)' }
  $deno = Find-Deno
  Set-State 'mode' 'git'
  Set-State 'deno' $deno
  Detail 'mode' 'git'
  Detail 'deno' $deno
}

function Test-PinnedDeno([string]$Deno) {
  $first = [string](Invoke-Quiet $Deno @('--version') | Select-Object -First 1)
  return $first -like "deno $DenoVersion *"
}

# The stdout lines of $Program with $Arguments, its stderr dropped.
function Invoke-Quiet([string]$Program, [string[]]$Arguments) {
  $ErrorActionPreference = 'Continue'
  & $Program @Arguments 2>$null
}

# The absolute path of a Deno $DenoVersion, or a failed stage.
function Find-Deno {
  if ($env:HERALD_DENO) {
    $deno = Get-AbsolutePath $env:HERALD_DENO
    if (-not (Test-Path -LiteralPath $deno) -or -not (Test-PinnedDeno $deno)) { Fail "HERALD_DENO=$env:HERALD_DENO is not Deno $DenoVersion" }
    return $deno
  }
  if ((Test-Command 'deno') -and (Test-PinnedDeno 'deno')) { return (Get-Command deno).Source }
  $deno = ''
  if (Test-Command 'npx') {
    Say "fetching Deno $DenoVersion with npx"
    $deno = [string](Invoke-Quiet 'npx' @('-y', "deno@$DenoVersion", 'eval', 'console.log(Deno.execPath())') | Select-Object -Last 1)
  }
  if (-not $deno -or -not (Test-Path -LiteralPath $deno)) { Fail "Deno $DenoVersion is needed: install Node.js (npx fetches it) or put deno $DenoVersion on the PATH" }
  return (Get-AbsolutePath $deno)
}

# repository: Herald's code in the install folder (a pinned checkout, or the verified release binary).
function Stage-Repository {
  if ((Get-InstallMode) -eq 'binary') { Repository-Binary } else { Repository-Git }
  Detail 'mode' (Get-InstallMode)
}

# venv, python-deps: Herald is TypeScript on Deno; the upstream's Python stages are kept as skips.
function Stage-Venv { Skip 'Herald needs no Python' }

function Stage-PythonDeps { Skip 'Herald needs no Python' }

# node-deps: the npm packages Herald imports, installed exactly as deno.lock pins them.
function Stage-NodeDeps {
  if ((Get-InstallMode) -eq 'binary') { Skip 'a release binary carries its dependencies' }
  $deno = Get-State 'deno'
  if (-not $deno) { Fail 'no Deno recorded; run the "prerequisites" stage first' }
  Set-Location -LiteralPath $InstallDir
  $env:DENO_NO_UPDATE_CHECK = '1'
  Invoke-Native "deno install failed in $InstallDir (see the lines above)" $deno @('install', '--frozen')
}

# path: the `herald` command a person types, in $BinDir, and $BinDir on the user's PATH.
function Stage-Path {
  New-Item -ItemType Directory -Force -Path $BinDir | Out-Null
  $command = if ((Get-InstallMode) -eq 'binary') { Install-BinaryCommand } else { Install-CheckoutCommand }
  Set-State 'herald' $command
  Detail 'bin' $command
  Detail 'onPath' (Add-UserPath)
}

# config: the Herald home, made by Herald itself (never overwriting a file), with the bundled skills
# seeded unless -NoSkills wrote .no-bundled-skills first.
function Stage-Config {
  $herald = Get-HeraldCommand
  New-Item -ItemType Directory -Force -Path $HeraldHome | Out-Null
  if ($NoSkills) {
    $marker = Join-Path $HeraldHome '.no-bundled-skills'
    if (-not (Test-Path -LiteralPath $marker)) { New-Item -ItemType File -Path $marker | Out-Null }
    Detail 'skills' 'not seeded (.no-bundled-skills)'
  }
  Detail 'config' $(if (Test-Path (Join-Path $HeraldHome 'config.yaml')) { 'kept' } else { 'none' })
  Invoke-Native "herald could not prepare its home $HeraldHome (see the lines above)" $herald @('skills', 'list')
  Detail 'home' $HeraldHome
}

function Test-CanAsk { return (-not $NonInteractive) -and [Environment]::UserInteractive -and -not [Console]::IsInputRedirected }

# setup: the model provider Herald talks to, chosen by the person at the terminal.
function Stage-Setup {
  if ($NonInteractive) { Skip 'non-interactive: run `herald setup` to choose a model provider' }
  if (-not (Test-CanAsk)) { Skip 'no terminal to ask on: run `herald setup` to choose a model provider' }
  $herald = Get-HeraldCommand
  $code = Invoke-Console $herald @('setup')
  if ($code -ne 0) { Fail "herald setup did not finish (exit code $code); run ``herald setup`` again" }
}

# gateway: Herald's messaging gateway as a background service, only when the person says yes.
function Stage-Gateway {
  if ($NonInteractive) { Skip 'non-interactive: run `herald gateway install` to run the gateway as a service' }
  if (-not (Test-CanAsk)) { Skip 'no terminal to ask on: run `herald gateway install` to run the gateway as a service' }
  $herald = Get-HeraldCommand
  $answer = Read-Host 'Run the messaging gateway as a background service now? [y/N]'
  if ($answer -notmatch '^(y|yes)$') { Skip 'not now: run `herald gateway install` later' }
  Invoke-Native 'herald gateway install failed (see the lines above)' $herald @('gateway', 'install')
  Invoke-Native 'herald gateway start failed (see the lines above)' $herald @('gateway', 'start')
}

# desktop: a desktop app, once Herald has one.
function Stage-Desktop { Skip 'Herald has no desktop app to build yet; the dashboard is `herald dashboard`' }

# complete: the bootstrap-complete marker, which tells the desktop resolver this install is whole.
# (`herald bootstrap-marker write` takes this over later.)
function Stage-Complete {
  if (-not (Test-Path -LiteralPath $InstallDir)) { Fail "$InstallDir is missing; run the ""repository"" stage first" }
  $mode = Get-InstallMode
  $head = if ($mode -eq 'git') { [string](Get-GitOutput @('-C', $InstallDir, 'rev-parse', 'HEAD') | Select-Object -First 1) } else { Get-State 'pinned-commit' }
  if (-not $head -or $head.Length -lt 7) { Fail 'cannot tell which commit is installed; run the "repository" stage again' }
  $pinBranch = Get-State 'pinned-branch'
  if (-not $pinBranch) { $pinBranch = 'main' }
  $marker = Join-Path $InstallDir $MarkerName
  $body = Format-JsonObject ([ordered]@{
      schemaVersion = 1
      pinnedCommit = $head
      pinnedBranch = $pinBranch
      completedAt = (Get-Date).ToUniversalTime().ToString("yyyy-MM-dd'T'HH:mm:ss.000'Z'")
    })
  Write-TextFile $marker "$body`n"
  Write-TextFile (Join-Path $InstallDir '.install_method') "$mode`n"
  Detail 'marker' $marker
  Detail 'commit' $head
  Detail 'branch' $pinBranch
}

$StageFunctions = @{
  'prerequisites' = 'Stage-Prerequisites'; 'repository' = 'Stage-Repository'; 'venv' = 'Stage-Venv'
  'python-deps' = 'Stage-PythonDeps'; 'node-deps' = 'Stage-NodeDeps'; 'path' = 'Stage-Path'
  'config' = 'Stage-Config'; 'setup' = 'Stage-Setup'; 'gateway' = 'Stage-Gateway'
  'desktop' = 'Stage-Desktop'; 'complete' = 'Stage-Complete'
}

# --- running a stage --------------------------------------------------------------------------

# Runs the stage's function; returns what came of it: @{ Kind = 'ok', 'skip' or 'fail'; Reason }.
# Its output goes to stderr; its folder and temporary folders are restored however it ends.
function Invoke-StageFunction([string]$Name) {
  $here = Get-Location
  try {
    & $StageFunctions[$Name] | ForEach-Object { [Console]::Error.WriteLine("$_") }
    return @{ Kind = 'ok'; Reason = '' }
  } catch {
    return (Get-StageOutcome $_.Exception)
  } finally {
    Set-Location $here
    Remove-TempFolders
  }
}

# Runs one stage; prints its frame when $Frame is set. Returns $true when it succeeded or was skipped.
function Invoke-Stage([string]$Name, [bool]$Frame) {
  $script:Details = [ordered]@{}
  $script:CurrentStage = $Name
  $script:FrameSent = $false
  $script:FrameOwed = $Frame
  $entry = $StageList | Where-Object { $_.name -eq $Name } | Select-Object -First 1
  foreach ($need in $entry.needs) {
    if (-not (Test-Path -LiteralPath (Join-Path $StateDir "$need.done"))) {
      Detail 'needs' $need
      $reason = "the ""$need"" stage must run first (""$Name"" needs it)"
      Say $reason
      if ($Frame) { Send-Frame $false $Name $false $reason }
      return $false
    }
  }
  $outcome = Invoke-StageFunction $Name
  $done = Join-Path $StateDir "$Name.done"
  if ($outcome.Kind -eq 'fail') {
    Say $outcome.Reason
    if (Test-Path -LiteralPath $done) { Remove-Item -Force -LiteralPath $done }
    if ($Frame) { Send-Frame $false $Name $false $outcome.Reason }
    return $false
  }
  if ($outcome.Kind -eq 'skip') { Say "skipped: $($outcome.Reason)" }
  New-Item -ItemType Directory -Force -Path $StateDir | Out-Null
  [IO.File]::WriteAllText($done, (Get-Date).ToUniversalTime().ToString('o'))
  if ($Frame) { Send-Frame $true $Name ($outcome.Kind -eq 'skip') $outcome.Reason }
  return $true
}

function Get-IncludedStages {
  return @($StageList | Where-Object { $_.when -eq 'always' -or ($_.when -eq 'desktop' -and $IncludeDesktop) })
}

# The stage list of this run as the one JSON object -Manifest prints (install.sh prints the same).
function Format-Manifest {
  $stages = @(foreach ($entry in Get-IncludedStages) {
      Format-JsonObject ([ordered]@{ name = $entry.name; title = $entry.title; category = $entry.category; needsInput = $entry.needsInput })
    })
  return '{"protocolVersion":' + (ConvertTo-JsonText $ProtocolVersion) + ',"stages":[' + ($stages -join ',') + ']}'
}

# --- dispatch: -Help, -Manifest, then -Stage, then a full install ------------------------------

# Runs what the arguments ask for; returns the exit code (0 ok, 1 a stage failed, 2 usage).
function Invoke-Main {
  if ($Help) {
    [Console]::Out.WriteLine($Usage)
    return 0
  }
  if ($StageGiven) {
    $script:FrameOwed = $true
    $script:CurrentStage = $Stage
  }
  $argError = Get-ArgumentError
  Initialize-Layout
  if ($Manifest) {
    if ($argError) { Say $argError; return 2 }
    [Console]::Out.WriteLine((Format-Manifest))
    return 0
  }
  if ($StageGiven) { return (Invoke-OneStage $argError) }
  if ($argError) {
    Say "$argError; run install.ps1 -Help"
    return 2
  }
  $included = Get-IncludedStages
  $index = 0
  foreach ($entry in $included) {
    $index++
    Say "[$index/$($included.Count)] $($entry.title)"
    if (-not (Invoke-Stage $entry.name ([bool]$Json))) {
      Say "the ""$($entry.name)"" stage failed; fix what it says, then run: .\install.ps1 -Stage $($entry.name)"
      return 1
    }
  }
  Say "done: run herald (or $BinDir\herald)"
  return 0
}

# -Stage <name>: exactly one frame, also for a usage error (exit 2).
function Invoke-OneStage([string]$ArgError) {
  $names = ($StageList | ForEach-Object { $_.name }) -join ' '
  $problem = ''
  if ($ArgError) { $problem = "$ArgError; run install.ps1 -Help" }
  elseif (-not $Stage) { $problem = "missing stage name; stages: $names" }
  elseif (-not $StageFunctions.ContainsKey($Stage)) { $problem = "unknown stage ""$Stage""; stages: $names" }
  if ($problem) {
    Say $problem
    Send-Frame $false $Stage $false $problem
    return 2
  }
  if (Invoke-Stage $Stage $true) { return 0 }
  return 1
}

# Runs when the installer ends, also after Ctrl+C (PowerShell runs finally blocks then): the frame
# of the stage that ran when one is owed and none went out, and no temporary folder left behind.
function Complete-Run([string]$Problem) {
  if ($script:FrameOwed -and -not $script:FrameSent) {
    $reason = if ($Problem) { "the installer stopped: $Problem" } else { 'the installer was stopped before the stage finished; run it again' }
    Send-Frame $false $script:CurrentStage $false $reason
  }
  Remove-TempFolders
}

$script:ExitCode = 1
$script:Problem = ''
try {
  Invoke-Main | ForEach-Object { if ($_ -is [int]) { $script:ExitCode = $_ } else { [Console]::Error.WriteLine("$_") } }
} catch {
  $script:Problem = "$($_.Exception.Message)"
  Say $script:Problem
  $script:ExitCode = 1
} finally {
  Complete-Run $script:Problem
}
exit $script:ExitCode
