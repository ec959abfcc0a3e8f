//! `flowmcp libs status` and `flowmcp libs install`: the npm packages schemas declare in
//! `requiredLibraries`, in the library directory (an npm prefix) they are loaded from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Args, Subcommand};
use flowmcp_catalog::libs::{self, LibraryState};
use serde_json::{Value, json};

use crate::context::config::library_dir;
use crate::context::{Config, ProfileArg, config, profile_of, validation_options};
use crate::output::{shown, write_stdout};

#[derive(Args, Debug)]
pub(crate) struct LibsArgs {
    #[command(subcommand)]
    command: LibsCommand,
}

#[derive(Subcommand, Debug)]
enum LibsCommand {
    /// Which libraries the schemas of a catalog need, and whether each is installed and usable.
    #[command(
        long_about = "For every library the schemas of a catalog (or of the given files) \
    declare in `requiredLibraries`: how many schemas need it and its state in the library \
    directory — installed (with its version; each installed one is loaded into a sandbox as a \
    handler would get it, and one that fails there is `fails`, with the reason), missing, not \
    allowlisted (SEC020 under the spec profile: the chapter 05 list plus \
    `security.allowedLibraries`), a Node built-in module, or a native addon (which the sandbox \
    cannot run).\n\n\
    The library directory is an npm prefix (`DIR/node_modules/<package>`): --libs DIR, else \
    FLOWMCP_LIBS, else `libs` of the configuration, else ~/.flowmcp/allowed-libraries (where the \
    JavaScript reference's CLI installs them).\n\n\
    Exit codes: 0 every required library is installed and usable, 1 otherwise, 2 usage error."
    )]
    Status(StatusArgs),
    /// Install the libraries a catalog needs (or the named ones) into the library directory.
    #[command(
        long_about = "Installs into the library directory, with the `npm` on your PATH (or \
    FLOWMCP_NPM) run in that directory, and with no install script of any package running \
    (`--ignore-scripts` on npm's command line and in its environment, which no `.npmrc` can \
    undo): the libraries the schemas of a catalog need that are missing and allowed, or the \
    package names given. Only npm registry names with an optional version or range reach npm \
    (`ethers`, `@scope/pkg@^1.2`); a catalog entry that is an option, a URL, a path or a git \
    source is refused and named. Native addons are not installed (the sandbox cannot run them), \
    nor Node built-ins. Without npm, prints the command to run by hand.\n\n\
    Exit codes: 0 installed (or nothing to install), 1 npm failed or is absent, or a catalog \
    entry was refused, 2 usage error."
    )]
    Install(InstallArgs),
}

/// Where the library directory is, shared by the subcommands.
#[derive(Args, Debug)]
struct Place {
    /// The library directory (an npm prefix). Default: FLOWMCP_LIBS, `libs` of the
    /// configuration, else ~/.flowmcp/allowed-libraries.
    #[arg(long, value_name = "DIR")]
    libs: Option<PathBuf>,
    /// `spec` or `compat` (decides which libraries are allowlisted). Default: spec, or the config.
    #[arg(long, value_enum)]
    profile: Option<ProfileArg>,
    /// Also take `libs` from the project's .flowmcp/config.json (see `flowmcp call --help`).
    #[arg(long)]
    trust_project_config: bool,
}

#[derive(Args, Debug)]
struct StatusArgs {
    /// The catalog directory or schema files. Default: `catalog` of the configuration, else the
    /// current directory.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    place: Place,
}

#[derive(Args, Debug)]
struct InstallArgs {
    /// A catalog directory or schema files (their missing libraries are installed), or package
    /// names. Default: the configuration's catalog, else the current directory.
    #[arg(value_name = "PATH|NAME")]
    items: Vec<String>,
    #[command(flatten)]
    place: Place,
}

/// The `npm install` of `specs` (each passed [`libs::check_install`]) into the library directory
/// `dir`, such that no package script can run, whatever the repository the user is in says:
/// npm runs in `dir` (so a repository's `.npmrc` is not its project configuration), with
/// `--ignore-scripts` on the command line and `npm_config_ignore_scripts=true` in its
/// environment (both beat every `.npmrc`), and the names after `--` (so none is read as an
/// option).
fn npm_install(npm: &Path, dir: &Path, specs: &[String]) -> Command {
    let mut c = Command::new(npm);
    c.current_dir(dir)
        .env("npm_config_ignore_scripts", "true")
        .arg("install")
        .arg("--prefix")
        .arg(dir)
        .args(["--ignore-scripts", "--no-audit", "--no-fund", "--"])
        .args(specs);
    c
}

/// One required library and what is known of it.
struct Need {
    /// How many schema files declare it.
    schemas: usize,
    /// `installed`, `fails`, `missing`, `not-allowlisted`, `builtin`, `native`.
    state: &'static str,
    /// The installed version, or why it cannot be used.
    detail: String,
}

/// The libraries the schema files under `paths` declare, with their states in words.
fn needs(
    paths: &[PathBuf],
    dir: Option<&Path>,
    opts: &flowmcp_validate::Options,
) -> Result<BTreeMap<String, Need>, String> {
    let files: Vec<(PathBuf, String)> = crate::walk::collect(paths)?
        .into_iter()
        .map(|f| (f.path, f.display))
        .collect();
    let version = |v: &Option<String>| v.clone().unwrap_or_else(|| "unknown version".into());
    Ok(libs::needs(&files, dir, opts)
        .into_iter()
        .map(|(name, (schemas, state))| {
            let (state, detail) = match state {
                LibraryState::Builtin => (
                    "builtin",
                    "a Node built-in module: the sandbox has none".to_string(),
                ),
                LibraryState::NotAllowlisted => (
                    "not-allowlisted",
                    "not on the allowlist (SEC020): add it to security.allowedLibraries"
                        .to_string(),
                ),
                LibraryState::Native { package } => (
                    "native",
                    format!(
                        "a native addon ({}): the sandbox cannot run it",
                        package.display()
                    ),
                ),
                LibraryState::Installed { version: v } => (
                    "installed",
                    format!("{}, loads in the sandbox", version(&v)),
                ),
                LibraryState::Fails { version: v, reason } => {
                    ("fails", format!("{}: {reason}", version(&v)))
                }
                _ => ("missing", "not installed".to_string()),
            };
            (
                name,
                Need {
                    schemas,
                    state,
                    detail,
                },
            )
        })
        .collect())
}

pub(crate) fn run(a: LibsArgs) -> Result<ExitCode, String> {
    match a.command {
        LibsCommand::Status(a) => status(a),
        LibsCommand::Install(a) => install(a),
    }
}

/// The catalog paths: the given ones, else the configuration's catalog, else `.`.
fn catalog_paths(given: Vec<PathBuf>, cfg: &Config) -> Vec<PathBuf> {
    if given.is_empty() {
        vec![cfg.catalog.clone().unwrap_or_else(|| PathBuf::from("."))]
    } else {
        given
    }
}

fn options(place: &Place, cfg: &Config) -> flowmcp_validate::Options {
    validation_options(cfg, profile_of(place.profile, cfg))
}

fn status(a: StatusArgs) -> Result<ExitCode, String> {
    let cfg = config(a.place.trust_project_config)?;
    let dir = library_dir(a.place.libs.as_deref(), &cfg);
    let opts = options(&a.place, &cfg);
    let needs = needs(&catalog_paths(a.paths, &cfg), dir.as_deref(), &opts)?;
    let usable = needs.values().all(|n| n.state == "installed");
    if a.json {
        let libs: Vec<Value> = needs
            .iter()
            .map(|(name, n)| {
                json!({"name": name, "schemas": n.schemas, "state": n.state, "detail": n.detail})
            })
            .collect();
        let v = json!({"directory": dir, "libraries": libs});
        write_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        ))?;
    } else {
        let mut out = format!(
            "library directory: {}\n",
            dir.as_deref().map_or_else(
                || "(none: set --libs or HOME)".into(),
                |d| if flowmcp_files::named::is_dir(d) {
                    d.display().to_string()
                } else {
                    format!(
                        "{} (does not exist: `flowmcp libs install` creates it)",
                        d.display()
                    )
                }
            )
        );
        if needs.is_empty() {
            out.push_str("no schema declares requiredLibraries\n");
        }
        for (name, n) in &needs {
            out.push_str(&format!(
                "{:<16} {} ({} schema{}): {}\n",
                n.state,
                shown(name),
                n.schemas,
                if n.schemas == 1 { "" } else { "s" },
                shown(&n.detail)
            ));
        }
        write_stdout(&out)?;
    }
    Ok(if usable {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn install(a: InstallArgs) -> Result<ExitCode, String> {
    let cfg = config(a.place.trust_project_config)?;
    let dir = library_dir(a.place.libs.as_deref(), &cfg)
        .ok_or("no library directory: give --libs DIR (HOME is not set)")?;
    let opts = options(&a.place, &cfg);
    let (paths, names): (Vec<String>, Vec<String>) = a
        .items
        .into_iter()
        .partition(|i| flowmcp_files::named::exists(Path::new(i)));
    let mut wanted: Vec<String> = Vec::new();
    for n in &names {
        libs::check_install(n).map_err(|e| e.to_string())?;
        wanted.push(n.clone());
    }
    // Names from a catalog's `requiredLibraries` that npm must never see.
    let mut refused = 0usize;
    if !paths.is_empty() || names.is_empty() {
        let paths = catalog_paths(paths.into_iter().map(PathBuf::from).collect(), &cfg);
        for (name, n) in needs(&paths, Some(&dir), &opts)? {
            match n.state {
                "missing" => match libs::check_install(&name) {
                    Ok(()) => wanted.push(name),
                    Err(e) => {
                        refused += 1;
                        eprintln!("flowmcp: not installing {}", shown(&e.to_string()));
                    }
                },
                "installed" => {}
                _ => eprintln!(
                    "flowmcp: not installing {}: {}",
                    shown(&name),
                    shown(&n.detail)
                ),
            }
        }
    }
    let refused_code = if refused == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if wanted.is_empty() {
        write_stdout("nothing to install\n")?;
        return Ok(refused_code);
    }
    let npm = cfg.npm.clone().unwrap_or_else(|| PathBuf::from("npm"));
    let mut command = npm_install(&npm, &dir, &wanted);
    // The same command for a shell (a range such as `>=1 <2` quoted).
    let manual = format!(
        "cd '{}' && npm_config_ignore_scripts=true npm {}",
        dir.display(),
        command
            .get_args()
            .map(|a| {
                let a = a.to_string_lossy();
                if a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "@/._^~=-".contains(c))
                {
                    a.into_owned()
                } else {
                    format!("'{a}'")
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    );
    flowmcp_files::named::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    eprintln!("flowmcp: running {manual}");
    match command.status() {
        Ok(s) if s.success() && refused > 0 => {
            write_stdout(&format!(
                "installed {} into {}; {refused} refused (see above)\n",
                wanted.join(", "),
                dir.display()
            ))?;
            Ok(refused_code)
        }
        Ok(s) if s.success() => {
            write_stdout(&format!(
                "installed {} into {}\n",
                wanted.join(", "),
                dir.display()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(s) => {
            eprintln!("flowmcp: npm failed ({s}); the command was: {manual}");
            Ok(ExitCode::from(1))
        }
        Err(e) => {
            eprintln!(
                "flowmcp: cannot run npm ({e}): install Node.js and npm, or run by hand: {manual}"
            );
            Ok(ExitCode::from(1))
        }
    }
}
