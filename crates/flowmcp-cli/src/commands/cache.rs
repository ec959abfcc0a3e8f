//! `flowmcp cache`: the preload cache shown or cleared (and, cleared whole, the validation result
//! cache).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use flowmcp_catalog::runtime::PreloadCache;
use serde_json::{Value, json};

use crate::context::{cache_to_inspect, config, result_cache_at};
use crate::output::{shown, write_stdout};

#[derive(Args, Debug)]
pub(crate) struct CacheArgs {
    #[command(subcommand)]
    command: CacheCommand,
    /// The preload cache directory. Default: `cacheDir` of the config, else ~/.flowmcp/cache.
    #[arg(long, value_name = "DIR", global = true)]
    cache_dir: Option<PathBuf>,
    /// The preload cache in Redis (see `flowmcp call --help`): status and clear look only at the
    /// keys `flowmcp:preload:v1:*`. Default: `cache` of the configuration.
    #[arg(
        long = "cache",
        value_name = "URL",
        global = true,
        conflicts_with = "cache_dir"
    )]
    cache: Option<String>,
    /// Also take `cacheDir` and `cache` from the project's .flowmcp/config.json (see
    /// `flowmcp call --help`).
    #[arg(long, global = true)]
    trust_project_config: bool,
}

#[derive(Subcommand, Debug)]
enum CacheCommand {
    /// List cached responses with size, age and expiry. An entry kept under another file name or
    /// Redis key than its own key gives is marked `mismatched` with where it is (it was not put
    /// there by flowmcp, is never served and is not removed by `cache clear`), and counted.
    Status {
        /// Only this namespace.
        namespace: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove cached responses (all, or one namespace) and, without a namespace, the validation
    /// result cache. Only files that parse as entries this program wrote, at the place their own
    /// key gives, are removed; anything else is kept and counted.
    Clear {
        /// Only this namespace.
        namespace: Option<String>,
    },
}

pub(crate) fn run(a: CacheArgs) -> Result<ExitCode, String> {
    let cfg = config(a.trust_project_config)?;
    let cache = cache_to_inspect(a.cache_dir.clone(), a.cache, &cfg)?
        .ok_or("no cache directory: HOME is not set; give --cache-dir")?;
    match a.command {
        CacheCommand::Status { namespace, json } => {
            let entries = cache
                .status(namespace.as_deref())
                .map_err(|e| format!("{cache}: {e}"))?;
            if json {
                let items: Vec<Value> = entries
                    .iter()
                    .map(|e| {
                        json!({"namespace": e.namespace, "tool": e.tool, "paramHash": e.param_hash,
                               "size": e.size, "ttl": e.ttl, "fetchedAt": e.fetched_at,
                               "expiresAt": e.expires_at, "expired": e.expired,
                               "mismatched": e.mismatched,
                               "path": e.path.display().to_string()})
                    })
                    .collect();
                let text = serde_json::to_string_pretty(&Value::Array(items))
                    .map_err(|e| e.to_string())?;
                write_stdout(&format!("{text}\n"))?;
            } else {
                let mut out = String::new();
                for e in &entries {
                    let id = match &e.param_hash {
                        Some(h) => format!("{}/{} [{h}]", shown(&e.namespace), shown(&e.tool)),
                        None => format!("{}/{}", shown(&e.namespace), shown(&e.tool)),
                    };
                    let mismatched = if e.mismatched {
                        format!(
                            "  mismatched: kept at {}",
                            flowmcp_spec::diagnostic::display_path(&e.path)
                        )
                    } else {
                        String::new()
                    };
                    out.push_str(&format!(
                        "{id}  {} bytes  fetched {}  {} {}{mismatched}\n",
                        e.size,
                        e.fetched_at,
                        if e.expired { "expired" } else { "expires" },
                        e.expires_at
                    ));
                }
                let mismatched = entries.iter().filter(|e| e.mismatched).count();
                out.push_str(&format!("{} cached responses in {cache}", entries.len()));
                if mismatched > 0 {
                    out.push_str(&format!(" ({mismatched} mismatched)"));
                }
                out.push('\n');
                write_stdout(&out)?;
            }
        }
        CacheCommand::Clear { namespace } => {
            let report = cache
                .clear(namespace.as_deref())
                .map_err(|e| format!("{cache}: {e}"))?;
            let mut out = format!("removed {} cached responses\n", report.removed);
            if !report.kept.is_empty() {
                let one = report.kept.len() == 1;
                out.push_str(&format!(
                    "kept {} {}{} that {} not {} written by flowmcp:\n",
                    report.kept.len(),
                    match cache {
                        PreloadCache::Redis(_) => "key",
                        _ => "file",
                    },
                    if one { "" } else { "s" },
                    if one { "is" } else { "are" },
                    if one {
                        "a cache entry"
                    } else {
                        "cache entries"
                    },
                ));
                for p in &report.kept {
                    out.push_str(&format!(
                        "  {}\n",
                        flowmcp_spec::diagnostic::display_path(p)
                    ));
                }
            }
            // The validation result cache is this machine's, in the cache directory.
            if namespace.is_none()
                && let Some(results) = result_cache_at(a.cache_dir, &cfg)
            {
                let removed = results
                    .clear()
                    .map_err(|e| format!("{}: {e}", results.dir().display()))?;
                out.push_str(&format!("removed {removed} cached validation results\n"));
            }
            write_stdout(&out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
