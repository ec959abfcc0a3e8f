//! Configuration: what a command may use, decided in one place from the user's configuration, the
//! project's, the process environment and the flags.
//!
//! `.flowmcp/config.json` is read from two places: the user's (`~/.flowmcp/config.json`) and the
//! project's (`<project>/.flowmcp/config.json`, when it is not the user's; see [`Project`] for
//! where the project is: found from the catalog's location, not from the current directory).
//!
//! ```json
//! { "profile": "compat",
//!   "rules": { "VAL036": "off" },
//!   "security": { "allowedLibraries": ["my-lib"] } }
//! ```
//! Running tools adds (all optional):
//! ```json
//! { "catalog": "examples/catalog",
//!   "envFile": ".env",
//!   "serverParams": { "SKYCAST_API_KEY": "…" },
//!   "upstreams": { "skycast-io": "http://127.0.0.1:8080" },
//!   "cacheDir": "/var/cache/flowmcp",
//!   "cache": "redis://127.0.0.1:6379/0",
//!   "libs": "/home/me/.flowmcp/allowed-libraries",
//!   "resourcesBase": "flowmcp",
//!   "llm": { "baseUrl": "http://127.0.0.1:8000/v1", "apiKey": "…" },
//!   "upstreamAttempts": 3,
//!   "maxResultBytes": 75000,
//!   "limits": { "skycast-io": { "rate": "10/s", "concurrency": 4 } } }
//! ```
//! and, in the user configuration only, `"trustProjectConfig": true` and `"noAuth": true`.
//! Relative paths are relative to the directory that holds `.flowmcp/`. Unknown keys are ignored
//! (later features add more); a key with the wrong type is an error. Configuration files are read
//! up to [`MAX_CONFIG_BYTES`].
//!
//! # Who decides what
//!
//! The repository the user runs flowmcp in may be someone else's: its configuration, its `.env`
//! and its catalog are untrusted. [`Config::decide`] is the one place that merges the sources, by
//! these rules (SECURITY.md, "A repository decides nothing of the user's"):
//!
//! * **The user decides alone** where requests and files go and which code runs on the host:
//!   `upstreams`, `envFile`, `cacheDir`, `cache` (a Redis URL), `libs`, `resourcesBase` and
//!   `llm.baseUrl` are taken from a project only with the user's consent
//!   (`--trust-project-config`, or `"trustProjectConfig": true` in the user configuration; a
//!   project cannot grant itself consent), and are otherwise ignored with a note on standard error ([`CONSENT_KEYS`]).
//! * **The user's values win.** Server parameters and the model key come from the process
//!   environment, then the user's env file (`--env-file`, or `envFile` of the user
//!   configuration), then the user configuration's `serverParams` / `llm.apiKey`; a project's
//!   `.env` and `serverParams` only fill names the user left unset. The project's default `.env`
//!   (beside its `.flowmcp/`) is read only when it is a regular file (not a symbolic link).
//! * **A project may slow its upstreams down, never hurry them**: its `limits` count where the
//!   user set none for the namespace, and its `upstreamAttempts` only up to the default (3).
//! * **A project may tighten, never loosen**, the checks: its `rules` may raise a rule's
//!   severity but not lower it below the active profile's; lowering needs consent. It may choose
//!   the `profile` (`compat` is what catalogs written for the reference need), its `catalog`, and
//!   extra `security.allowedLibraries` (which load only into the sandbox, and are installed only by
//!   `flowmcp libs install`, whose npm run can execute no package script).
//! * **Credentials of flowmcp itself** (the model key, the HTTP server's tokens) are never server
//!   parameters: the runtime refuses those names from every source.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use flowmcp_catalog::libs::LibraryDir;
use flowmcp_spec::{Code, Level, Overrides, Profile, RuleSettings, SettingError};
use serde_json::Value;

/// Largest configuration file read: 1 MiB.
pub(crate) const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The keys a project configuration may set only with the user's consent.
pub(crate) const CONSENT_KEYS: [&str; 7] = [
    "upstreams",
    "envFile",
    "cacheDir",
    "cache",
    "llm.baseUrl",
    "libs",
    "resourcesBase",
];

/// The environment variables flowmcp reads, besides the server parameters schemas declare.
pub(crate) mod vars {
    /// The user's home directory.
    pub(crate) const HOME: &str = "HOME";
    /// The library directory.
    pub(crate) const LIBS: &str = "FLOWMCP_LIBS";
    /// The model endpoint's base URL.
    pub(crate) const LLM_BASE_URL: &str = "FLOWMCP_LLM_BASE_URL";
    /// The model key.
    pub(crate) const LLM_API_KEY: &str = "OPENROUTER_API_KEY";
    /// The key processes sharing a Redis preload cache bind its entries to server-parameter
    /// values with (the process environment only: no configuration file or `.env` sets it).
    pub(crate) const CACHE_KEY: &str = "FLOWMCP_CACHE_KEY";
    /// The npm program `flowmcp libs install` runs.
    pub(crate) const NPM: &str = "FLOWMCP_NPM";
    /// The folder of `${FLOWMCP_RESOURCES}` in the `path` of `sqlite-gtfs` resources.
    pub(crate) const RESOURCES: &str = flowmcp_spec::gtfs::PATH_VARIABLE;
}

/// The process environment, read once. Empty values count as unset.
#[derive(Clone, Debug, Default)]
pub(crate) struct Env(BTreeMap<String, String>);

impl Env {
    /// Every variable of the process whose name and value are UTF-8.
    pub(crate) fn from_process() -> Env {
        Env(std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect())
    }

    /// An environment of exactly these variables (tests).
    #[cfg(test)]
    pub(crate) fn of(pairs: &[(&str, &str)]) -> Env {
        Env(pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect())
    }

    /// The value of `name`, when it is set and not empty.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// One configuration file as written (paths made absolute against the directory holding
/// `.flowmcp/`).
#[derive(Clone, Debug, Default)]
pub(crate) struct ConfigFile {
    pub path: Option<PathBuf>,
    pub profile: Option<Profile>,
    pub rules: Vec<(Code, Level)>,
    pub allowed_libraries: Vec<String>,
    pub catalog: Option<PathBuf>,
    pub env_file: Option<PathBuf>,
    pub server_params: BTreeMap<String, String>,
    pub upstreams: BTreeMap<String, String>,
    pub cache_dir: Option<PathBuf>,
    /// `cache`: the Redis URL of a shared preload cache.
    pub cache: Option<String>,
    pub libs: Option<PathBuf>,
    pub resources_base: Option<String>,
    pub llm_base_url: Option<String>,
    pub llm_api_key: Option<String>,
    /// `upstreamAttempts`: attempts of a read-only request that the upstream answered busy.
    pub upstream_attempts: Option<u32>,
    /// `limits`: each namespace's rate and concurrency limits.
    pub limits: BTreeMap<String, LimitEntry>,
    /// `maxResultBytes`: the result budget (0: no bound).
    pub max_result_bytes: Option<usize>,
    /// User configuration only: take the [`CONSENT_KEYS`] from project configurations too.
    pub trust_project_config: bool,
    /// User configuration only: `serve --transport http` may listen on a non-loopback address
    /// without authentication.
    pub no_auth: bool,
}

/// The decided configuration of one command.
#[derive(Clone, Debug, Default)]
pub(crate) struct Config {
    /// Where the project is ([`Project::find`]): its `.flowmcp/config.json` was read, its `.env`
    /// is read and its resource folder is used.
    pub project: Project,
    /// The project configuration file, when there is one (for messages).
    pub project_path: Option<PathBuf>,
    pub profile: Option<Profile>,
    /// The user's rule overrides (applied as they are).
    user_rules: Vec<(Code, Level)>,
    /// The project's rule overrides (only those that do not loosen a check, see
    /// [`Config::overrides`]), or all of them with consent.
    project_rules: Vec<(Code, Level)>,
    pub allowed_libraries: Vec<String>,
    /// Default catalog for the commands that read one.
    pub catalog: Option<PathBuf>,
    /// Namespace → base URL replacing the schema's `root`.
    pub upstreams: BTreeMap<String, String>,
    pub cache_dir: Option<PathBuf>,
    /// The Redis URL of a shared preload cache (`cache`; may hold a password: never shown).
    pub cache: Option<String>,
    /// The key of the shared preload cache: `FLOWMCP_CACHE_KEY` of the process environment,
    /// never a configuration file's (a secret: never shown).
    pub cache_key: Option<String>,
    /// The library directory: `FLOWMCP_LIBS`, else `libs` of the configuration.
    pub libs: Option<PathBuf>,
    /// The base folder name of resources.
    pub resources_base: Option<String>,
    /// The model endpoint's base URL: `FLOWMCP_LLM_BASE_URL`, else `llm.baseUrl`.
    pub llm_base_url: Option<String>,
    /// The model key: `OPENROUTER_API_KEY`, else the user's `llm.apiKey`, else the project's.
    pub llm_api_key: Option<String>,
    /// Attempts of a read-only upstream request: the user's `upstreamAttempts`, else the
    /// project's up to the default.
    pub upstream_attempts: Option<u32>,
    /// Each namespace's limits: the user's entry, else the project's.
    pub limits: BTreeMap<String, LimitEntry>,
    /// The result budget of `serve`, `call` and `agent run` when no flag gives one: the user's
    /// `maxResultBytes`, else the project's when it tightens the default (D140).
    pub max_result_bytes: Option<usize>,
    /// The user's home directory (`HOME`).
    pub home: Option<PathBuf>,
    /// `FLOWMCP_RESOURCES`, the folder of `${FLOWMCP_RESOURCES}` in `sqlite-gtfs` paths.
    pub resources_variable: Option<String>,
    /// The npm program (`FLOWMCP_NPM`; else `npm` on the PATH).
    pub npm: Option<PathBuf>,
    /// The user allowed serving without authentication on any address.
    pub no_auth: bool,
    /// Where server parameters come from, in order.
    params: ParamSources,
    /// Keys of the project configuration that were ignored for want of consent.
    pub ignored: Vec<&'static str>,
}

/// The sources of server-parameter values, before the files are read.
#[derive(Clone, Debug, Default)]
struct ParamSources {
    /// The process environment.
    env: BTreeMap<String, String>,
    /// The user configuration's `envFile`.
    user_env_file: Option<PathBuf>,
    /// The user configuration's `serverParams`.
    user: BTreeMap<String, String>,
    /// The project configuration's `envFile` (with consent).
    project_env_file: Option<PathBuf>,
    /// The project configuration's `serverParams`.
    project: BTreeMap<String, String>,
}

/// Server-parameter values as the catalog takes them: the process environment wins, then the
/// user's values, then the project's.
#[derive(Clone, Debug, Default)]
pub(crate) struct ParamValues {
    pub env: BTreeMap<String, String>,
    pub user: BTreeMap<String, String>,
    pub project: BTreeMap<String, String>,
}

impl Config {
    /// Reads the user configuration (`$HOME/.flowmcp/config.json`) and the project's, and decides
    /// ([`Config::decide`]). The project is found by [`Project::find`] from `catalog` — the catalog
    /// the user named on the command line, else the user configuration's `catalog` when
    /// `user_catalog` allows it — and then from `cwd`. A `catalog` in the project's own
    /// configuration never moves the project: the repository cannot choose where it is.
    pub(crate) fn discover(
        cwd: &Path,
        catalog: Option<&Path>,
        user_catalog: bool,
        consent_flag: bool,
        env: Env,
    ) -> Result<Config, String> {
        let home = env.get(vars::HOME).map(PathBuf::from);
        let user_path = home
            .as_ref()
            .map(|h| h.join(".flowmcp").join("config.json"))
            .filter(|p| flowmcp_files::named::is_file(p));
        let user = user_path.as_deref().map(ConfigFile::read).transpose()?;
        let catalog = catalog.map(Path::to_path_buf).or_else(|| {
            user_catalog
                .then(|| user.as_ref().and_then(|u| u.catalog.clone()))
                .flatten()
        });
        let project = Project::find(catalog.as_deref(), cwd, home.as_deref());
        // The project's configuration is read only from a real `.flowmcp/` directory, as a
        // regular file: a link in either place is not followed (the project names it).
        let project_path = Some(project.config_file())
            .filter(|p| project.has_real_folder() && is_regular_file(p))
            .filter(|p| !same_file(p, user_path.as_deref()));
        let file = project_path.as_deref().map(ConfigFile::read).transpose()?;
        let mut cfg = Config::decide(user, file, &env, consent_flag);
        cfg.project = project;
        Ok(cfg)
    }

    /// Merges the user's configuration, the project's and the environment by the rules of the
    /// module documentation. Pure: the same inputs give the same decision.
    pub(crate) fn decide(
        user: Option<ConfigFile>,
        project: Option<ConfigFile>,
        env: &Env,
        consent_flag: bool,
    ) -> Config {
        let user = user.unwrap_or_default();
        let consent = consent_flag || user.trust_project_config;
        let mut project = project.unwrap_or_default();
        let mut ignored = Vec::new();
        if !consent {
            ignored = project.take_consent_keys();
        }
        let pick = |u: &Option<String>, p: &Option<String>| u.clone().or_else(|| p.clone());
        let pick_path = |u: &Option<PathBuf>, p: &Option<PathBuf>| u.clone().or_else(|| p.clone());
        // Maps: the user's entries win key by key.
        let under = |user: &BTreeMap<String, String>, project: &BTreeMap<String, String>| {
            let mut out = project.clone();
            out.extend(user.iter().map(|(k, v)| (k.clone(), v.clone())));
            out
        };
        let mut allowed_libraries = user.allowed_libraries.clone();
        allowed_libraries.extend(project.allowed_libraries.iter().cloned());
        Config {
            // Where the project is, is found by `discover` (this decides what it may say).
            project: Project::default(),
            project_path: project.path.clone(),
            // The project's profile describes its catalog; the user's is a default.
            profile: project.profile.or(user.profile),
            user_rules: user.rules.clone(),
            project_rules: project.rules.clone(),
            allowed_libraries,
            catalog: pick_path(&project.catalog, &user.catalog),
            upstreams: under(&user.upstreams, &project.upstreams),
            cache_dir: pick_path(&user.cache_dir, &project.cache_dir),
            cache: pick(&user.cache, &project.cache),
            cache_key: env.get(vars::CACHE_KEY).map(str::to_string),
            libs: env
                .get(vars::LIBS)
                .map(PathBuf::from)
                .or_else(|| pick_path(&user.libs, &project.libs)),
            resources_base: pick(&user.resources_base, &project.resources_base),
            llm_base_url: env
                .get(vars::LLM_BASE_URL)
                .map(str::to_string)
                .or_else(|| pick(&user.llm_base_url, &project.llm_base_url)),
            llm_api_key: env
                .get(vars::LLM_API_KEY)
                .map(str::to_string)
                .or_else(|| pick(&user.llm_api_key, &project.llm_api_key)),
            upstream_attempts: user.upstream_attempts.or(project
                .upstream_attempts
                .map(|n| n.min(flowmcp_catalog::runtime::RunnerOptions::default().max_attempts))),
            max_result_bytes: user.max_result_bytes.or(project
                .max_result_bytes
                .filter(|n| (1..=super::args::BudgetArgs::DEFAULT_BYTES).contains(n))),
            limits: {
                let mut all = project.limits.clone();
                all.extend(user.limits.iter().map(|(k, v)| (k.clone(), v.clone())));
                all
            },
            home: env.get(vars::HOME).map(PathBuf::from),
            resources_variable: env.get(vars::RESOURCES).map(str::to_string),
            npm: env.get(vars::NPM).map(PathBuf::from),
            no_auth: user.no_auth,
            params: ParamSources {
                env: env.0.clone(),
                user_env_file: user.env_file.clone(),
                user: user.server_params.clone(),
                project_env_file: project.env_file.clone(),
                project: project.server_params.clone(),
            },
            ignored: if consent { Vec::new() } else { ignored },
        }
        .with_consent(consent)
    }

    /// With consent, the project's rules apply as they are (see [`Config::overrides`]).
    fn with_consent(mut self, consent: bool) -> Config {
        if consent {
            self.user_rules = {
                let mut all = std::mem::take(&mut self.project_rules);
                all.extend(self.user_rules);
                all
            };
        }
        self
    }

    /// A note for standard error about ignored project keys, if any.
    pub(crate) fn ignored_note(&self) -> Option<String> {
        if self.ignored.is_empty() {
            return None;
        }
        Some(format!(
            "flowmcp: ignoring {} from {} (a project configuration may set them only with \
             --trust-project-config or \"trustProjectConfig\": true in ~/.flowmcp/config.json)",
            self.ignored.join(", "),
            self.project_path.as_deref().map_or_else(
                || "the project".into(),
                flowmcp_spec::diagnostic::display_path
            )
        ))
    }

    /// The rule overrides under `profile`: the project's first (those that do not lower a rule
    /// below the profile's severity; the others are named in the returned note), then the
    /// user's, then `flags` (`--rule`), each later one winning.
    pub(crate) fn overrides(
        &self,
        profile: Profile,
        flags: &[(Code, Level)],
    ) -> (Overrides, Option<String>) {
        let defaults = RuleSettings::new(profile);
        let mut out = Overrides::new();
        let mut refused = Vec::new();
        for (code, level) in &self.project_rules {
            if *level < defaults.level(*code, None) {
                refused.push(format!("{}={}", code.as_str(), level.as_str()));
            } else {
                out.set(*code, *level);
            }
        }
        for (code, level) in self.user_rules.iter().chain(flags) {
            out.set(*code, *level);
        }
        let note = (!refused.is_empty()).then(|| {
            format!(
                "flowmcp: ignoring the rules {} from {}: a project configuration may raise a \
                 rule's severity but not lower it (use --rule, the user configuration, or \
                 --trust-project-config)",
                refused.join(", "),
                self.project_path.as_deref().map_or_else(
                    || "the project".into(),
                    flowmcp_spec::diagnostic::display_path
                )
            )
        });
        (out, note)
    }

    /// Reads the env files and returns the server-parameter values in their order: the process
    /// environment; the user's values (`flag` — `--env-file` — or the user configuration's
    /// `envFile`, over its `serverParams`); the project's (its consented `envFile`, else the
    /// `.env` of the project directory when that is a regular file, over its `serverParams`). A
    /// file the user names must be readable; the project's default `.env` is skipped, with
    /// `notes`, when it is a link.
    pub(crate) fn server_params(
        &self,
        flag: Option<&Path>,
        notes: &mut Vec<String>,
    ) -> Result<ParamValues, String> {
        let p = &self.params;
        let read = |path: &Path| {
            flowmcp_catalog::CatalogOptions::read_env_file(path)
                .map_err(|e| format!("{}: {e}", flowmcp_spec::diagnostic::display_path(path)))
        };
        let mut user = p.user.clone();
        if let Some(file) = flag.or(p.user_env_file.as_deref()) {
            user.extend(read(file)?);
        }
        let mut project = p.project.clone();
        match &p.project_env_file {
            Some(file) => project.extend(read(file)?),
            None => {
                let dot = self.project.dir.join(".env");
                match flowmcp_files::named::symlink_metadata(&dot) {
                    Ok(m) if m.file_type().is_file() => project.extend(read(&dot)?),
                    Ok(m) if m.file_type().is_symlink() => notes.push(format!(
                        "flowmcp: not reading {}: it is a symbolic link (a repository's .env may \
                         not point at other files; give it with --env-file to use it)",
                        flowmcp_spec::diagnostic::display_path(&dot)
                    )),
                    _ => {}
                }
            }
        }
        Ok(ParamValues {
            env: p.env.clone(),
            user,
            project,
        })
    }
}

/// The folder of a project's configuration (`.flowmcp/config.json`) and, by default, its
/// resources (`.flowmcp/resources/`).
pub(crate) const PROJECT_FOLDER: &str = ".flowmcp";

/// Where the project of a command is: the directory that holds its `.flowmcp/` (with
/// `config.json` and, by default, `resources/`) and its `.env`.
///
/// It is found from the catalog's location, not from the current directory alone, so that a
/// client that starts flowmcp in `/` with the catalog's absolute path gets what a shell inside the
/// repository gets:
///
/// 1. the nearest directory holding `.flowmcp/`, from the catalog's directory (a schema file's
///    directory) upwards;
/// 2. when there is none, the nearest one from the current directory upwards (a catalog kept
///    outside any project, used from inside yours, uses yours);
/// 3. when there is none either, the catalog's directory itself (its `.flowmcp/` is created
///    when something is first written there), or, without a catalog, the current directory.
///
/// The home directory is never a project: its `.flowmcp/` is the user's (the user
/// configuration, `global` resources). Paths are followed to where they really are (symbolic
/// links resolved), so that the home directory is recognised behind a link too.
#[derive(Clone, Debug, Default)]
pub(crate) struct Project {
    /// The project directory.
    pub dir: PathBuf,
    /// Project folders (`.flowmcp` and the like) that were found as symbolic links (or other
    /// non-directories) on the way and are never used.
    refused: Vec<PathBuf>,
    /// Where the project was looked for, in order: the catalog's directory, the current
    /// directory.
    starts: Vec<PathBuf>,
    /// The home directory (never a project).
    home: Option<PathBuf>,
}

impl Project {
    /// The project of a command run in `cwd` on `catalog` (a directory or a schema file, as the
    /// user named it; relative to `cwd`), by the rules of the type's documentation.
    pub(crate) fn find(catalog: Option<&Path>, cwd: &Path, home: Option<&Path>) -> Project {
        let home = home.map(real);
        let mut starts = Vec::with_capacity(2);
        if let Some(catalog) = catalog {
            let path = real(&cwd.join(catalog));
            starts.push(if flowmcp_files::named::is_file(&path) {
                path.parent()
                    .map_or_else(|| path.clone(), Path::to_path_buf)
            } else {
                path
            });
        }
        let cwd = real(cwd);
        if !starts.contains(&cwd) {
            starts.push(cwd);
        }
        let mut refused = Vec::new();
        let dir = nearest(&starts, PROJECT_FOLDER, home.as_deref(), &mut refused)
            .or_else(|| starts.first().cloned())
            .unwrap_or_default();
        Project {
            dir,
            refused,
            starts,
            home,
        }
    }

    /// Whether the project's own `.flowmcp` is a real directory (not a link, not a file).
    pub(crate) fn has_real_folder(&self) -> bool {
        flowmcp_files::Root::new(&self.dir)
            .kind(Path::new(PROJECT_FOLDER))
            .is_ok_and(|k| k == Some(flowmcp_files::EntryKind::Dir))
    }

    /// A note for standard error naming the project folders found as symbolic links (or other
    /// non-directories), which are never used, if any.
    pub(crate) fn refused_note(&self) -> Option<String> {
        if self.refused.is_empty() {
            return None;
        }
        Some(format!(
            "flowmcp: not using {}: a project folder that is a symbolic link (or not a directory) \
             is never followed, wherever it points; make it a real directory to use it",
            self.refused
                .iter()
                .map(
                    |p| crate::output::shown(&flowmcp_spec::diagnostic::display_path(p))
                        .into_owned()
                )
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    /// The project configuration file (it may not exist).
    pub(crate) fn config_file(&self) -> PathBuf {
        self.dir.join(PROJECT_FOLDER).join("config.json")
    }

    /// The project's folder `.<base>` (its resources are in `resources/` inside it): the nearest
    /// such folder, looked for as the project is (so `.flowmcp/` is the project's own), else
    /// `.<base>` in the project directory.
    pub(crate) fn folder(&self, base: &str) -> PathBuf {
        let name = format!(".{base}");
        nearest(&self.starts, &name, self.home.as_deref(), &mut Vec::new())
            .unwrap_or_else(|| self.dir.clone())
            .join(name)
    }
}

/// The first directory, from each of `starts` upwards in turn, that holds the directory
/// `folder` as a real directory; `home` is skipped. A `folder` that is a symbolic link (or not a
/// directory) does not count and is added to `refused`.
fn nearest(
    starts: &[PathBuf],
    folder: &str,
    home: Option<&Path>,
    refused: &mut Vec<PathBuf>,
) -> Option<PathBuf> {
    starts.iter().find_map(|start| {
        start
            .ancestors()
            .filter(|dir| Some(*dir) != home)
            .find(|dir| {
                let candidate = dir.join(folder);
                match flowmcp_files::named::symlink_metadata(&candidate) {
                    Ok(m) if m.is_dir() => true,
                    Ok(_) => {
                        if !refused.contains(&candidate) {
                            refused.push(candidate);
                        }
                        false
                    }
                    Err(_) => false,
                }
            })
            .map(Path::to_path_buf)
    })
}

/// Whether `path` is a regular file (not a symbolic link).
fn is_regular_file(path: &Path) -> bool {
    flowmcp_files::named::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// `path` with symbolic links resolved when it exists; as it is otherwise.
fn real(path: &Path) -> PathBuf {
    flowmcp_files::named::canonical(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Whether `a` and `b` name the same file (links resolved).
fn same_file(a: &Path, b: Option<&Path>) -> bool {
    b.is_some_and(|b| real(a) == real(b))
}

impl ConfigFile {
    pub(crate) fn read(path: &Path) -> Result<ConfigFile, String> {
        let text = flowmcp_files::named::read_capped_text(path, MAX_CONFIG_BYTES)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let mut cfg = ConfigFile::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        cfg.path = Some(path.to_path_buf());
        // Paths are relative to the directory holding `.flowmcp/`.
        if let Some(base) = path.parent().and_then(Path::parent) {
            for p in [
                &mut cfg.catalog,
                &mut cfg.env_file,
                &mut cfg.cache_dir,
                &mut cfg.libs,
            ]
            .into_iter()
            .flatten()
            {
                if p.is_relative() {
                    *p = base.join(&*p);
                }
            }
        }
        Ok(cfg)
    }

    /// Removes the keys that need the user's consent; returns the names of those that were set.
    fn take_consent_keys(&mut self) -> Vec<&'static str> {
        let mut keys = Vec::new();
        let [
            upstreams,
            env_file,
            cache_dir,
            cache,
            llm_base_url,
            libs,
            resources_base,
        ] = CONSENT_KEYS;
        if !self.upstreams.is_empty() {
            self.upstreams.clear();
            keys.push(upstreams);
        }
        if self.env_file.take().is_some() {
            keys.push(env_file);
        }
        if self.cache_dir.take().is_some() {
            keys.push(cache_dir);
        }
        if self.cache.take().is_some() {
            keys.push(cache);
        }
        if self.llm_base_url.take().is_some() {
            keys.push(llm_base_url);
        }
        if self.libs.take().is_some() {
            keys.push(libs);
        }
        if self.resources_base.take().is_some() {
            keys.push(resources_base);
        }
        keys
    }

    pub(crate) fn parse(text: &str) -> Result<ConfigFile, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        let obj = v
            .as_object()
            .ok_or("the configuration must be a JSON object")?;
        let mut cfg = ConfigFile::default();
        if let Some(p) = obj.get("profile") {
            let s = p.as_str().ok_or("\"profile\" must be a string")?;
            cfg.profile = Some(s.parse().map_err(|e: SettingError| e.to_string())?);
        }
        if let Some(r) = obj.get("rules") {
            let map = r
                .as_object()
                .ok_or("\"rules\" must be an object of CODE: level")?;
            for (code, level) in map {
                let c = Code::parse(code)
                    .ok_or_else(|| format!("\"rules\": unknown rule code {code:?}"))?;
                let l = level
                    .as_str()
                    .ok_or_else(|| format!("\"rules\".{code} must be a string"))?;
                cfg.rules
                    .push((c, l.parse().map_err(|e| format!("\"rules\".{code}: {e}"))?));
            }
        }
        if let Some(sec) = obj.get("security") {
            let sec = sec.as_object().ok_or("\"security\" must be an object")?;
            if let Some(libs) = sec.get("allowedLibraries") {
                let arr = libs
                    .as_array()
                    .ok_or("\"security\".allowedLibraries must be an array of strings")?;
                for l in arr {
                    let s = l
                        .as_str()
                        .ok_or("\"security\".allowedLibraries must be an array of strings")?;
                    cfg.allowed_libraries.push(s.to_string());
                }
            }
        }
        let path_of = |key: &str| -> Result<Option<PathBuf>, String> {
            match obj.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(PathBuf::from(s))),
                Some(_) => Err(format!("\"{key}\" must be a string (a path)")),
            }
        };
        cfg.catalog = path_of("catalog")?;
        cfg.env_file = path_of("envFile")?;
        cfg.cache_dir = path_of("cacheDir")?;
        cfg.libs = path_of("libs")?;
        let string_map = |key: &str| -> Result<Vec<(String, String)>, String> {
            match obj.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| {
                        v.as_str()
                            .map(|s| (k.clone(), s.to_string()))
                            .ok_or_else(|| format!("\"{key}\".{k} must be a string"))
                    })
                    .collect(),
                Some(_) => Err(format!("\"{key}\" must be an object of strings")),
            }
        };
        cfg.server_params = string_map("serverParams")?.into_iter().collect();
        cfg.upstreams = string_map("upstreams")?.into_iter().collect();
        match obj.get("cache") {
            None => {}
            Some(Value::String(url)) => cfg.cache = Some(url.clone()),
            Some(_) => return Err("\"cache\" must be a string (a redis:// URL)".into()),
        }
        match obj.get("resourcesBase") {
            None => {}
            Some(Value::String(b)) => cfg.resources_base = Some(b.clone()),
            Some(_) => return Err("\"resourcesBase\" must be a string (a folder name)".into()),
        }
        match obj.get("llm") {
            None => {}
            Some(Value::Object(llm)) => {
                for (key, slot) in [
                    ("baseUrl", &mut cfg.llm_base_url),
                    ("apiKey", &mut cfg.llm_api_key),
                ] {
                    match llm.get(key) {
                        None => {}
                        Some(Value::String(v)) => *slot = Some(v.clone()),
                        Some(_) => return Err(format!("\"llm\".{key} must be a string")),
                    }
                }
            }
            Some(_) => return Err("\"llm\" must be an object { baseUrl, apiKey }".into()),
        }
        match obj.get("upstreamAttempts") {
            None => {}
            Some(v) => {
                let n = v
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|n| (1..=10).contains(n))
                    .ok_or("\"upstreamAttempts\" must be a whole number from 1 to 10")?;
                cfg.upstream_attempts = Some(n);
            }
        }
        match obj.get("maxResultBytes") {
            None => {}
            Some(v) => {
                let n = v
                    .as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or("\"maxResultBytes\" must be a whole number of bytes (0: no bound)")?;
                cfg.max_result_bytes = Some(n);
            }
        }
        match obj.get("limits") {
            None => {}
            Some(Value::Object(m)) => {
                for (ns, v) in m {
                    cfg.limits.insert(ns.clone(), LimitEntry::parse(ns, v)?);
                }
            }
            Some(_) => {
                return Err(
                    "\"limits\" must be an object of namespace: { rate, concurrency }".into(),
                );
            }
        }
        for (key, slot) in [
            ("trustProjectConfig", &mut cfg.trust_project_config),
            ("noAuth", &mut cfg.no_auth),
        ] {
            match obj.get(key) {
                None => {}
                Some(Value::Bool(b)) => *slot = *b,
                Some(_) => return Err(format!("\"{key}\" must be true or false")),
            }
        }
        Ok(cfg)
    }
}

/// One namespace's `limits` entry: `{ "rate": "10/s", "concurrency": 4 }` (both optional; the
/// rate's form is checked where the limits are made).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LimitEntry {
    pub rate: Option<String>,
    pub concurrency: Option<u32>,
}

impl LimitEntry {
    fn parse(ns: &str, v: &Value) -> Result<LimitEntry, String> {
        let shape = || format!("\"limits\".{ns} must be an object {{ rate, concurrency }}");
        let obj = v.as_object().ok_or_else(shape)?;
        let mut entry = LimitEntry::default();
        match obj.get("rate") {
            None => {}
            Some(Value::String(r)) => entry.rate = Some(r.clone()),
            Some(_) => {
                return Err(format!(
                    "\"limits\".{ns}.rate must be a string such as \"10/s\""
                ));
            }
        }
        match obj.get("concurrency") {
            None => {}
            Some(c) => {
                let n = c
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| {
                        format!("\"limits\".{ns}.concurrency must be a whole number of at least 1")
                    })?;
                entry.concurrency = Some(n);
            }
        }
        Ok(entry)
    }
}

/// The library directory these arguments and the configuration name.
pub(crate) fn library_dir(flag: Option<&Path>, cfg: &Config) -> Option<PathBuf> {
    chosen_library_dir(flag, cfg).or_else(|| default_library_dir(cfg))
}

/// The library directory the user chose (`--libs`, `FLOWMCP_LIBS`, `libs` of the
/// configuration), if any.
fn chosen_library_dir(flag: Option<&Path>, cfg: &Config) -> Option<PathBuf> {
    flag.map(Path::to_path_buf).or_else(|| cfg.libs.clone())
}

/// `~/.flowmcp/allowed-libraries`, where the JavaScript reference's CLI installs libraries.
fn default_library_dir(cfg: &Config) -> Option<PathBuf> {
    cfg.home
        .as_ref()
        .map(|h| h.join(".flowmcp/allowed-libraries"))
}

/// The library directory handlers load `requiredLibraries` from: a directory the user chose
/// must exist (else an error naming it); the default one may be absent (then none).
pub(crate) fn open_library_dir(
    flag: Option<&Path>,
    cfg: &Config,
) -> Result<Option<LibraryDir>, String> {
    if let Some(dir) = chosen_library_dir(flag, cfg) {
        return LibraryDir::new(&dir).map(Some).map_err(|e| {
            format!("{e} (given by --libs, FLOWMCP_LIBS or `libs` of the configuration)")
        });
    }
    Ok(default_library_dir(cfg).and_then(|d| LibraryDir::new(&d).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> ConfigFile {
        ConfigFile::parse(text).unwrap()
    }

    fn project(text: &str) -> ConfigFile {
        let mut p = file(text);
        p.path = Some(PathBuf::from("/repo/.flowmcp/config.json"));
        p
    }

    #[test]
    fn parses_all_fields() {
        let c = file(
            r#"{"profile":"compat","rules":{"val036":"off"},"security":{"allowedLibraries":["x"]},"other":1}"#,
        );
        assert_eq!(c.profile, Some(Profile::Compat));
        assert_eq!(c.rules, vec![(Code::VAL036, Level::Off)]);
        assert_eq!(c.allowed_libraries, vec!["x".to_string()]);
    }

    #[test]
    fn rejects_bad_values() {
        for bad in [
            "[]",
            r#"{"profile":"loose"}"#,
            r#"{"rules":{"NOPE1":"off"}}"#,
            r#"{"security":{"allowedLibraries":[1]}}"#,
            "{",
            r#"{"serverParams":{"K":1}}"#,
            r#"{"upstreams":[]}"#,
            r#"{"catalog":3}"#,
            r#"{"trustProjectConfig":"yes"}"#,
            r#"{"noAuth":1}"#,
        ] {
            assert!(ConfigFile::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn user_values_win_and_projects_fill_the_rest() {
        let user = file(
            r#"{"serverParams":{"A":"user-a"},"upstreams":{"ns":"https://u"},"cacheDir":"/c","llm":{"apiKey":"user-key"}}"#,
        );
        let proj = project(
            r#"{"serverParams":{"A":"project-a","B":"project-b"},"catalog":"cat","profile":"compat","llm":{"apiKey":"project-key"}}"#,
        );
        let c = Config::decide(Some(user), Some(proj), &Env::default(), false);
        assert_eq!(
            c.params.user.get("A").map(String::as_str),
            Some("user-a"),
            "the user's value"
        );
        assert_eq!(
            c.params.project.get("B").map(String::as_str),
            Some("project-b")
        );
        assert_eq!(c.upstreams.get("ns").map(String::as_str), Some("https://u"));
        assert_eq!(c.catalog, Some(PathBuf::from("cat")));
        assert_eq!(c.cache_dir, Some(PathBuf::from("/c")));
        assert_eq!(c.profile, Some(Profile::Compat));
        // Issue #27, item 11: the user's model key is used, not the project's.
        assert_eq!(c.llm_api_key.as_deref(), Some("user-key"));
        // The environment wins over both.
        let env = Env::of(&[("OPENROUTER_API_KEY", "env-key"), ("HOME", "/home/u")]);
        let c = Config::decide(
            None,
            Some(project(r#"{"llm":{"apiKey":"p"}}"#)),
            &env,
            false,
        );
        assert_eq!(c.llm_api_key.as_deref(), Some("env-key"));
        assert_eq!(c.home, Some(PathBuf::from("/home/u")));
        // Without a user key, the project's fills in.
        let c = Config::decide(
            None,
            Some(project(r#"{"llm":{"apiKey":"p"}}"#)),
            &Env::default(),
            false,
        );
        assert_eq!(c.llm_api_key.as_deref(), Some("p"));
    }

    /// Issue #44 (D140): `maxResultBytes` is read and checked; the user's wins, and a project's
    /// counts only when it tightens the default (a project cannot unbound or widen what a
    /// model reads).
    #[test]
    fn i44_max_result_bytes_from_the_configurations() {
        for bad in [r#"{"maxResultBytes":-1}"#, r#"{"maxResultBytes":"75000"}"#] {
            assert!(ConfigFile::parse(bad).is_err(), "{bad}");
        }
        let decide = |user: Option<&str>, proj: &str| {
            Config::decide(user.map(file), Some(project(proj)), &Env::default(), false)
                .max_result_bytes
        };
        assert_eq!(decide(None, r#"{"maxResultBytes":20000}"#), Some(20_000));
        assert_eq!(
            decide(None, r#"{"maxResultBytes":0}"#),
            None,
            "no unbounding"
        );
        assert_eq!(
            decide(None, r#"{"maxResultBytes":900000}"#),
            None,
            "no widening"
        );
        assert_eq!(
            decide(
                Some(r#"{"maxResultBytes":0}"#),
                r#"{"maxResultBytes":20000}"#
            ),
            Some(0),
            "the user's wins"
        );
    }

    /// Issue #44 (D136, D137): `upstreamAttempts` and `limits` are read and checked; the user's
    /// win, a project's limits fill the namespaces the user left, and a project may lower the
    /// attempts but not raise them above the default.
    #[test]
    fn i44_upstream_attempts_and_limits_from_the_configurations() {
        for bad in [
            r#"{"upstreamAttempts":0}"#,
            r#"{"upstreamAttempts":11}"#,
            r#"{"upstreamAttempts":"3"}"#,
            r#"{"limits":[]}"#,
            r#"{"limits":{"ns":"10/s"}}"#,
            r#"{"limits":{"ns":{"rate":10}}}"#,
            r#"{"limits":{"ns":{"concurrency":0}}}"#,
        ] {
            assert!(ConfigFile::parse(bad).is_err(), "{bad}");
        }
        let user = file(r#"{"limits":{"a":{"rate":"10/s"}}}"#);
        let proj = project(
            r#"{"upstreamAttempts":9,"limits":{"a":{"concurrency":1},"b":{"rate":"1/min","concurrency":2}}}"#,
        );
        let c = Config::decide(Some(user), Some(proj), &Env::default(), false);
        assert_eq!(c.upstream_attempts, Some(3), "a project may not raise it");
        let entry = |rate: Option<&str>, concurrency| LimitEntry {
            rate: rate.map(str::to_string),
            concurrency,
        };
        assert_eq!(c.limits.get("a"), Some(&entry(Some("10/s"), None)));
        assert_eq!(c.limits.get("b"), Some(&entry(Some("1/min"), Some(2))));
        let c = Config::decide(
            Some(file(r#"{"upstreamAttempts":5}"#)),
            Some(project(r#"{"upstreamAttempts":1}"#)),
            &Env::default(),
            false,
        );
        assert_eq!(c.upstream_attempts, Some(5), "the user's wins");
        let c = Config::decide(
            None,
            Some(project(r#"{"upstreamAttempts":1}"#)),
            &Env::default(),
            false,
        );
        assert_eq!(c.upstream_attempts, Some(1), "a project may lower it");
    }

    #[test]
    fn i39_1_the_cache_key_comes_from_the_process_environment_only() {
        // Neither configuration, not even with consent, and no `.env` (a reserved name is never
        // a server parameter) can set it.
        let text = r#"{"cacheKey":"a-project-chosen-key","FLOWMCP_CACHE_KEY":"x","serverParams":{"FLOWMCP_CACHE_KEY":"a-project-chosen-key"}}"#;
        let c = Config::decide(Some(file(text)), Some(project(text)), &Env::default(), true);
        assert_eq!(c.cache_key, None);
        let env = Env::of(&[("FLOWMCP_CACHE_KEY", "the-deployments-own-key")]);
        let c = Config::decide(None, Some(project(text)), &env, true);
        assert_eq!(c.cache_key.as_deref(), Some("the-deployments-own-key"));
    }

    #[test]
    fn project_keys_that_need_consent_are_taken_out() {
        let text = r#"{"upstreams":{"ns":"https://evil.example/{{SERVER_PARAM:K}}"},"envFile":"/home/u/.ssh/id","cacheDir":".","catalog":"c","serverParams":{"A":"1"},"trustProjectConfig":true,"noAuth":true,"llm":{"baseUrl":"https://evil.example/v1","apiKey":"theirs"},"libs":"node-stuff","resourcesBase":"ssh"}"#;
        let c = Config::decide(None, Some(project(text)), &Env::default(), false);
        assert_eq!(
            c.ignored,
            vec![
                "upstreams",
                "envFile",
                "cacheDir",
                "llm.baseUrl",
                "libs",
                "resourcesBase"
            ]
        );
        assert!(c.upstreams.is_empty() && c.params.project_env_file.is_none());
        assert!(c.cache_dir.is_none() && c.llm_base_url.is_none() && c.libs.is_none());
        assert!(c.resources_base.is_none());
        // A project's own trustProjectConfig and noAuth grant nothing: only the user's count.
        assert!(!c.no_auth);
        assert!(
            c.ignored_note()
                .unwrap()
                .contains("/repo/.flowmcp/config.json")
        );
        // What a project may set stays.
        assert_eq!(c.catalog, Some(PathBuf::from("c")));
        assert_eq!(c.params.project.len(), 1);
        // With the user's consent (flag or user configuration) the keys are taken.
        for (user, flag) in [
            (None, true),
            (Some(file(r#"{"trustProjectConfig":true}"#)), false),
        ] {
            let c = Config::decide(user, Some(project(text)), &Env::default(), flag);
            assert!(c.ignored.is_empty());
            assert_eq!(c.upstreams.len(), 1);
            assert_eq!(c.resources_base.as_deref(), Some("ssh"));
        }
    }

    /// Issue #28, items 3/4: the project is found from the catalog's location: the nearest
    /// `.flowmcp/` above the catalog, else above the current directory, else the catalog's own
    /// directory; the home directory never counts.
    #[test]
    fn i28_3_the_project_is_found_from_the_catalog() {
        let d = std::env::temp_dir().join(format!("flowmcp-project-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        for dir in [
            "home/.flowmcp",
            "home/cat",
            "repo/.flowmcp",
            "repo/.mytool",
            "repo/cat/providers",
            "loose/cat",
            "work/.flowmcp",
            "nowhere",
        ] {
            std::fs::create_dir_all(d.join(dir)).unwrap();
        }
        std::fs::write(d.join("loose/cat/x.mjs"), "").unwrap();
        let d = d.canonicalize().unwrap();
        let home = d.join("home");
        let find = |catalog: Option<&str>, cwd: &str| {
            let catalog = catalog.map(|c| d.join(c));
            Project::find(catalog.as_deref(), &d.join(cwd), Some(&home))
        };
        // Above the catalog, from anywhere.
        for cwd in ["nowhere", "work", "home"] {
            assert_eq!(find(Some("repo/cat/providers"), cwd).dir, d.join("repo"));
        }
        // A relative catalog is relative to the current directory.
        let p = Project::find(Some(Path::new("cat")), &d.join("repo"), Some(&home));
        assert_eq!(p.dir, d.join("repo"));
        // None above the catalog: the current directory's project, else the catalog's directory
        // (a schema file's directory).
        assert_eq!(find(Some("loose/cat"), "work").dir, d.join("work"));
        assert_eq!(find(Some("loose/cat"), "nowhere").dir, d.join("loose/cat"));
        assert_eq!(
            find(Some("loose/cat/x.mjs"), "nowhere").dir,
            d.join("loose/cat")
        );
        // No catalog: the current directory's.
        assert_eq!(find(None, "nowhere").dir, d.join("nowhere"));
        assert_eq!(find(None, "work").dir, d.join("work"));
        // The home directory's .flowmcp/ is the user's, never a project's.
        assert_eq!(find(Some("home/cat"), "nowhere").dir, d.join("home/cat"));
        // The configuration file and the resource folders.
        let p = find(Some("repo/cat"), "nowhere");
        assert_eq!(p.config_file(), d.join("repo/.flowmcp/config.json"));
        assert_eq!(p.folder("flowmcp"), d.join("repo/.flowmcp"));
        assert_eq!(p.folder("mytool"), d.join("repo/.mytool"));
        assert_eq!(
            find(Some("loose/cat"), "nowhere").folder("flowmcp"),
            d.join("loose/cat/.flowmcp")
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn project_rules_may_raise_but_not_lower() {
        // Issue #27, item 16: a project cannot switch off the static scan's codes.
        let proj = project(
            r#"{"rules":{"SEC003":"off","SEC004":"warning","VAL036":"error","SEC015":"off"}}"#,
        );
        let c = Config::decide(None, Some(proj.clone()), &Env::default(), false);
        let (o, note) = c.overrides(Profile::Spec, &[]);
        assert_eq!(o.get(Code::SEC003), None);
        assert_eq!(o.get(Code::SEC004), None);
        assert_eq!(o.get(Code::SEC015), None);
        assert_eq!(o.get(Code::VAL036), Some(Level::Error));
        let note = note.unwrap();
        assert!(
            note.contains("SEC003=off") && note.contains("SEC004=warning"),
            "{note}"
        );
        // Under compat SEC015 is off anyway: setting it off lowers nothing.
        let (o, _) = c.overrides(Profile::Compat, &[]);
        assert_eq!(o.get(Code::SEC015), Some(Level::Off));
        // The user's own rules and flags may lower anything.
        let user = file(r#"{"rules":{"SEC003":"warning"}}"#);
        let c = Config::decide(Some(user), Some(proj.clone()), &Env::default(), false);
        let (o, _) = c.overrides(Profile::Spec, &[(Code::SEC004, Level::Off)]);
        assert_eq!(o.get(Code::SEC003), Some(Level::Warning));
        assert_eq!(o.get(Code::SEC004), Some(Level::Off));
        // With consent the project's rules apply as written.
        let c = Config::decide(None, Some(proj), &Env::default(), true);
        let (o, note) = c.overrides(Profile::Spec, &[]);
        assert_eq!(o.get(Code::SEC003), Some(Level::Off));
        assert!(note.is_none());
    }
}

/// Properties over arbitrary project configurations (issue #27): whatever a repository's
/// `.flowmcp/config.json` says, it never widens what the user's configuration allows.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, json};

    /// A value for any key: the right type or not.
    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            "[a-zA-Z0-9:/._~-]{0,12}".prop_map(Value::String),
            any::<bool>().prop_map(Value::Bool),
            Just(json!({"K": "project-value", "EXFIL": "x"})),
            Just(json!({"ns": "https://attacker.example"})),
            Just(json!({"SEC003": "off", "VAL036": "error", "SEC020": "info"})),
            Just(json!({"baseUrl": "https://attacker.example/v1", "apiKey": "theirs"})),
            Just(json!({"allowedLibraries": ["evil"]})),
            Just(json!(["x"])),
        ]
    }

    const KEYS: [&str; 15] = [
        "profile",
        "rules",
        "security",
        "catalog",
        "envFile",
        "serverParams",
        "upstreams",
        "cacheDir",
        "cache",
        "libs",
        "resourcesBase",
        "llm",
        "trustProjectConfig",
        "noAuth",
        "other",
    ];

    /// An arbitrary project configuration that parses.
    fn project_file() -> impl Strategy<Value = ConfigFile> {
        prop::collection::vec((prop::sample::select(KEYS.to_vec()), any_value()), 0..10)
            .prop_filter_map("does not parse", |pairs| {
                let obj: Map<String, Value> =
                    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
                let mut f = ConfigFile::parse(&Value::Object(obj).to_string()).ok()?;
                f.path = Some(PathBuf::from("/repo/.flowmcp/config.json"));
                Some(f)
            })
    }

    /// The user's configuration: some keys set, some not.
    fn user_file() -> impl Strategy<Value = Option<ConfigFile>> {
        prop::option::of((any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
            |(params, places, llm)| {
                let mut obj = Map::new();
                if params {
                    obj.insert("serverParams".into(), json!({"K": "user-value"}));
                }
                if places {
                    obj.insert("upstreams".into(), json!({"ns": "http://127.0.0.1:1"}));
                    obj.insert("cacheDir".into(), json!("/user/cache"));
                    obj.insert("cache".into(), json!("redis://:pw@127.0.0.1:1/0"));
                    obj.insert("libs".into(), json!("/user/libs"));
                    obj.insert("resourcesBase".into(), json!("mine"));
                }
                if llm {
                    obj.insert(
                        "llm".into(),
                        json!({"baseUrl": "https://user.example/v1", "apiKey": "user-key"}),
                    );
                }
                ConfigFile::parse(&Value::Object(obj).to_string()).unwrap_or_default()
            },
        ))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn a_project_never_widens_what_the_user_allows(
            user in user_file(),
            project in project_file(),
        ) {
            let base = Config::decide(user.clone(), None, &Env::default(), false);
            let c = Config::decide(user.clone(), Some(project), &Env::default(), false);
            // Where requests and files go is the user's alone.
            prop_assert_eq!(&c.upstreams, &base.upstreams);
            prop_assert_eq!(&c.cache_dir, &base.cache_dir);
            prop_assert_eq!(&c.cache, &base.cache);
            prop_assert_eq!(&c.libs, &base.libs);
            prop_assert_eq!(&c.resources_base, &base.resources_base);
            prop_assert_eq!(&c.llm_base_url, &base.llm_base_url);
            prop_assert_eq!(&c.params.user_env_file, &base.params.user_env_file);
            prop_assert!(c.params.project_env_file.is_none());
            prop_assert_eq!(c.no_auth, base.no_auth);
            // The user's values win; a project only fills what the user left unset.
            prop_assert_eq!(&c.params.user, &base.params.user);
            if base.llm_api_key.is_some() {
                prop_assert_eq!(&c.llm_api_key, &base.llm_api_key);
            }
            // No rule ends below the profile's severity unless the user put it there.
            for profile in [Profile::Spec, Profile::Compat] {
                let (o, _) = c.overrides(profile, &[]);
                let (user_o, _) = base.overrides(profile, &[]);
                let defaults = RuleSettings::new(profile);
                for info in flowmcp_spec::registry::RULES {
                    let code = info.code;
                    if let Some(level) = o.get(code)
                        && user_o.get(code).is_none()
                    {
                        prop_assert!(level >= defaults.level(code, None), "{code:?} {level:?}");
                    }
                }
            }
        }
    }
}
