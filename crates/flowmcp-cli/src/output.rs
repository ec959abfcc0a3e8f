//! What every command shares about its output: the formats of reports, text from catalogs and
//! responses made safe to show ([`shown`]), the CLI's own lines on standard error ([`say`]) and
//! writing standard output and JSON files.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use flowmcp_catalog::Catalog;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// One line per finding, then counts and a verdict.
    Human,
    /// The report as JSON (shape documented in flowmcp-spec's `diagnostic` module).
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

/// Writes `value` as pretty JSON with a final newline, atomically.
pub(crate) fn write_json(path: &std::path::Path, value: &serde_json::Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    flowmcp_files::named::write_atomic(path, format!("{text}\n").as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Text that comes from a catalog, a response or a model, as human output shows it: control
/// characters (newlines, carriage returns, escape sequences) escaped, so that no value can forge,
/// hide or recolour a line. Every such field of human output goes through this one function;
/// JSON output needs none (its encoder escapes them).
pub(crate) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    flowmcp_spec::diagnostic::escape_controls(text)
}

/// Whether stderr carries JSON log lines (`serve --log-format json`): then [`say`] writes every
/// line of the CLI's own there as a JSON log event too.
static JSON_STDERR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The target of [`say`]'s log events, which the log filter of `serve` always lets through (they
/// are written whatever the log level, as the lines of other commands are).
pub(crate) const SAY_TARGET: &str = "flowmcp::stderr";

/// From now on, [`say`] writes log events (the logger writes them as JSON objects).
pub(crate) fn say_as_json_logs() {
    JSON_STDERR.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Writes one line of the CLI's own (a note, a warning, an error, where `serve` listens) to
/// stderr: as it is, or under `serve --log-format json` as a log event at `level` (target
/// [`SAY_TARGET`]), so that every line of stderr is one JSON object. Every line a command that
/// may serve writes to stderr goes through here.
pub(crate) fn say(level: tracing::Level, line: &str) {
    if !JSON_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("{line}");
    } else if level == tracing::Level::ERROR {
        tracing::error!(target: SAY_TARGET, "{line}");
    } else if level == tracing::Level::WARN {
        tracing::warn!(target: SAY_TARGET, "{line}");
    } else {
        tracing::info!(target: SAY_TARGET, "{line}");
    }
}

/// [`shown`] for a block of text that is the output itself (a rendered prompt, a model's
/// answer): its lines and tabs stay, every other control character is escaped.
pub(crate) fn shown_block(text: &str) -> std::borrow::Cow<'_, str> {
    flowmcp_spec::diagnostic::escape_controls_in_block(text)
}

pub(crate) fn write_stdout(text: &str) -> Result<(), String> {
    stream_stdout(&mut |w| w.write_all(text.as_bytes()))
}

/// Standard output, buffered, for `write` to fill; flushed at the end. A closed pipe (`flowmcp …
/// | head`) is not an error worth reporting. The buffer is passed as its own type: a serializer
/// writes a token at a time, and each write is then a copy into the buffer, not a call through a
/// vtable (D182).
pub(crate) fn stream_stdout(
    write: &mut dyn FnMut(
        &mut std::io::BufWriter<std::io::StdoutLock<'static>>,
    ) -> std::io::Result<()>,
) -> Result<(), String> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write output: {e}")),
    }
}

/// Prints the catalog's load problems (files that are not callable, and why) to stderr.
pub(crate) fn print_problems(catalog: &Catalog) {
    for p in catalog.toolset().problems() {
        crate::say(
            tracing::Level::WARN,
            &format!("flowmcp: {}: {}", shown(&p.file), shown(&p.message)),
        );
    }
}

/// The root of the directory that holds `path`, and the file's name in it: commands that rewrite a
/// user's files (`migrate`, `test --prune`) write each through that directory's handle
/// ([`flowmcp_files::Root`]).
pub(crate) fn in_dir(path: &Path) -> Result<(flowmcp_files::Root, PathBuf), String> {
    let name = path
        .file_name()
        .ok_or_else(|| format!("{}: not a file name", path.display()))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Ok((flowmcp_files::Root::new(dir), PathBuf::from(name)))
}

/// Copies `path`'s `original` text to `<path>.bak` (refusing when that exists), then replaces
/// `path` with `text` atomically, both through the directory's handle (a symbolic link in
/// either place is not written through).
pub(crate) fn write_with_backup(path: &Path, original: &str, text: &str) -> Result<(), String> {
    let (root, name) = in_dir(path)?;
    let mut backup = name.as_os_str().to_owned();
    backup.push(".bak");
    let backup = PathBuf::from(backup);
    match root.write_new(&backup, original.as_bytes()) {
        Ok(()) => {}
        Err(flowmcp_files::PathError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::AlreadyExists =>
        {
            return Err(format!(
                "{}.bak exists already (a backup of an earlier run?): move it away and run \
                 again",
                path.display()
            ));
        }
        Err(e) => return Err(format!("cannot write {}.bak: {e}", path.display())),
    }
    root.write_atomic(&name, text.as_bytes(), &|_| true)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
