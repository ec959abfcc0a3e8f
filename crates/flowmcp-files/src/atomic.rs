//! Reading a file the user named whole within a size limit, and writing such files so that
//! nothing is ever half-written (the catalog index, generated docs, migrated schemas): one
//! implementation for every such reader and writer in the workspace. Re-exported by
//! [`named`](crate::named).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What every temporary file name contains (after a leading `.`): `.<name>.tmp-<pid>-<n>`.
const TEMP_MARK: &str = ".tmp-";

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// True for the names of [`write_atomic`]'s temporary files.
#[cfg(test)]
fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.contains(TEMP_MARK)
}

/// Why [`read_capped`] returned no bytes.
#[derive(Debug)]
pub enum ReadCappedError {
    /// The file has more bytes than the limit (its size, or the bytes seen when it grew while
    /// being read); nothing more of it was read.
    TooLarge(u64),
    /// The file could not be opened or read.
    Io(io::Error),
}

impl std::fmt::Display for ReadCappedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadCappedError::TooLarge(n) => write!(f, "larger than the limit ({n} bytes)"),
            ReadCappedError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadCappedError {}

/// The bytes of the file at `path` when it has at most `cap` bytes. The size the open file reports
/// is checked first and sizes the buffer, so a file is read with one or two reads and no copy; at
/// most `cap + 1` bytes are read in any case, as the file may grow between the check and the read.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, ReadCappedError> {
    read_open_capped(std::fs::File::open(path).map_err(ReadCappedError::Io)?, cap)
}

/// [`read_capped`] of a file already open (by path, or through a directory handle).
pub(crate) fn read_open_capped(file: std::fs::File, cap: u64) -> Result<Vec<u8>, ReadCappedError> {
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    read_open_sized(file, size, cap)
}

/// [`read_open_capped`] of a file whose size the caller has just read from the open file (its
/// metadata is not asked for again). The buffer holds one byte more than `size`, so a file that
/// did not change is read with two reads: all of it, then the end.
pub(crate) fn read_open_sized(
    mut file: std::fs::File,
    size: u64,
    cap: u64,
) -> Result<Vec<u8>, ReadCappedError> {
    use std::io::Read;
    if size > cap {
        return Err(ReadCappedError::TooLarge(size));
    }
    // Zeroed by writing, not asked for zeroed: the allocator then reuses memory already in use
    // rather than handing out fresh pages (a page fault each).
    let len = usize::try_from(size).unwrap_or(0).saturating_add(1);
    #[allow(
        clippy::slow_vector_initialization,
        reason = "`vec![0; len]` asks the allocator for zeroed memory, which is fresh pages"
    )]
    let mut buf = {
        let mut buf = Vec::with_capacity(len);
        buf.resize(len, 0u8);
        buf
    };
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            // Larger than it said: read the rest, at most `cap + 1` bytes in all.
            let limit = cap.saturating_add(1).saturating_sub(filled as u64);
            (&mut file)
                .take(limit)
                .read_to_end(&mut buf)
                .map_err(ReadCappedError::Io)?;
            break;
        }
        match file.read(&mut buf[filled..]) {
            Ok(0) => {
                buf.truncate(filled);
                break;
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadCappedError::Io(e)),
        }
    }
    if buf.len() as u64 > cap {
        return Err(ReadCappedError::TooLarge(buf.len() as u64));
    }
    Ok(buf)
}

/// Replaces `path` with `bytes` atomically: a new temporary file in the same directory (the existing
/// file's permissions copied), written and flushed to disk, then renamed over `path`. On any failure
/// the temporary file is removed and `path` is left as it was; a missing directory is not created.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, true)
}

/// [`write_atomic`] without flushing to disk: readers see the old file, the new one or none, never
/// a part, but a crash may lose or truncate what was written. For caches, whose reader checks
/// every entry it reads and treats a damaged one as missing; it saves two disk flushes per file.
pub fn write_cache_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, false)
}

fn replace(path: &Path, bytes: &[u8], durable: bool) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| io::Error::other(format!("{}: not a file path", path.display())))?;
    let pid = std::process::id();
    let mut attempts = 0;
    let (tmp, mut file) = loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}{TEMP_MARK}{pid}-{n}"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 100 => attempts += 1,
            Err(e) => return Err(e),
        }
    };
    let result = (|| -> io::Result<()> {
        file.write_all(bytes)?;
        if let Ok(meta) = std::fs::metadata(path)
            && meta.is_file()
        {
            file.set_permissions(meta.permissions())?;
        }
        if durable {
            file.sync_all()?;
        }
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // Make the rename itself durable where the platform allows it (best effort).
    if durable && let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("flowmcp-fsutil-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .expect("read dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| is_temp_name(n))
            .collect()
    }

    #[test]
    fn reads_within_the_cap_only() {
        let d = temp_dir("capped");
        let f = d.join("f.mjs");
        std::fs::write(&f, "12345").expect("seed");
        assert_eq!(read_capped(&f, 5).expect("at the cap"), b"12345");
        assert!(matches!(
            read_capped(&f, 4),
            Err(ReadCappedError::TooLarge(5))
        ));
        std::fs::write(&f, "").expect("empty");
        assert_eq!(read_capped(&f, 0).expect("empty"), b"");
        assert!(matches!(
            read_capped(&d.join("missing"), 10),
            Err(ReadCappedError::Io(_))
        ));
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Issue #40: the text reader (moved here from the runtime) says the limit and refuses bytes
    /// that are not UTF-8, naming neither the path nor the content.
    #[test]
    fn i40_read_capped_text_says_the_limit_and_not_utf8() {
        let d = temp_dir("text");
        let f = d.join("config.json");
        std::fs::write(&f, "héllo").expect("seed");
        assert_eq!(
            crate::named::read_capped_text(&f, 6).expect("fits"),
            "héllo"
        );
        let big = crate::named::read_capped_text(&f, 5).expect_err("too large");
        assert_eq!(big.to_string(), "larger than 5 bytes");
        std::fs::write(&f, [0xff, 0xfe]).expect("seed");
        let bad = crate::named::read_capped_text(&f, 10).expect_err("not text");
        assert_eq!(bad.to_string(), "not UTF-8 text");
        let _ = std::fs::remove_dir_all(&d);
    }

    /// D169: a read sized by the size the open file reported still reads the file as it is when
    /// that size is out of date (the file grew or shrank in between), within the cap.
    #[test]
    fn i46_a_sized_read_reads_what_is_there() {
        let d = temp_dir("sized");
        let f = d.join("schema.mjs");
        std::fs::write(&f, b"0123456789").expect("seed");
        let open = || std::fs::File::open(&f).expect("open");
        for size in [0, 3, 9, 10, 11, 40] {
            assert_eq!(
                read_open_sized(open(), size, 50).expect("within the cap"),
                b"0123456789",
                "said size {size}"
            );
        }
        assert_eq!(
            read_open_sized(open(), 10, 10).expect("at the cap"),
            b"0123456789"
        );
        // Grown past the cap since its size was read: refused, with at most cap + 1 bytes seen.
        assert!(matches!(
            read_open_sized(open(), 3, 6),
            Err(ReadCappedError::TooLarge(7))
        ));
        assert!(matches!(
            read_open_sized(open(), 9, 9),
            Err(ReadCappedError::TooLarge(10))
        ));
        // A size over the cap is refused before anything is read.
        assert!(matches!(
            read_open_sized(open(), 11, 10),
            Err(ReadCappedError::TooLarge(11))
        ));
        assert_eq!(read_capped(&f, 10).expect("fits"), b"0123456789");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn replaces_and_leaves_nothing_behind() {
        let d = temp_dir("ok");
        let target = d.join("f.json");
        std::fs::write(&target, "old").expect("seed");
        write_atomic(&target, b"new").expect("write");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "new");
        assert!(leftovers(&d).is_empty());
        // The rename cannot replace a non-empty directory: the write fails cleanly.
        let blocked = d.join("dir");
        std::fs::create_dir_all(blocked.join("inside")).expect("dir");
        assert!(write_atomic(&blocked, b"x").is_err());
        assert!(blocked.join("inside").is_dir());
        assert!(leftovers(&d).is_empty(), "{:?}", leftovers(&d));
        assert!(write_atomic(&d.join("missing").join("f"), b"x").is_err());
        assert!(!d.join("missing").exists());
        assert!(is_temp_name(".f.json.tmp-1-2") && !is_temp_name("f.json"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
