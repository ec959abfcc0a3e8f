//! Reading a file a walk found (see `flowmcp_files::walk`) through the walked directory's handle.

/// Reading a file a walk found, through the walked directory's handle.
pub use crate::file::load_file_under;

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 39, scope 1: a file the walk found is read through the walked directory's handle,
    /// so a folder on its way that is swapped for a link out after the walk is not followed
    /// (reading the walked path by name, as before, reads the outside file).
    #[cfg(unix)]
    #[test]
    fn i39_11_a_walked_file_is_read_through_the_walks_handle() {
        let base = std::env::temp_dir().join(format!("flowmcp-walkread-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let cat = base.join("cat");
        std::fs::create_dir_all(cat.join("p")).expect("dirs");
        std::fs::write(
            cat.join("p/a.mjs"),
            "export const main = { namespace: 'inside' }",
        )
        .expect("a");
        std::fs::create_dir_all(base.join("outside")).expect("outside");
        std::fs::write(base.join("outside/a.mjs"), "SECRET").expect("secret");
        let w = flowmcp_files::walk::walk_mjs(&cat, &|_| false).expect("walk");
        assert_eq!(w.files, vec![cat.join("p/a.mjs")]);
        // Between the walk and the read, `p` becomes a link out of the catalog.
        std::fs::rename(cat.join("p"), base.join("p-moved")).expect("move");
        std::os::unix::fs::symlink(base.join("outside"), cat.join("p")).expect("link");
        let limits = crate::Limits::default();
        let settings = flowmcp_spec::RuleSettings::new(flowmcp_spec::Profile::Spec);
        let read = load_file_under(Some(&cat), &w.files[0], "p/a.mjs", &limits, &settings);
        assert!(read.source.as_deref().is_none_or(|s| !s.contains("SECRET")));
        assert!(
            read.diagnostics
                .iter()
                .any(|d| d.code == flowmcp_spec::Code::LDR001),
            "{:?}",
            read.diagnostics
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}
