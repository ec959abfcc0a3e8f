//! Checking one open document: with its catalog when it lies in one, else on its own with the
//! shared lists it sees; the same validator, sandbox and limits as `validate`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use flowmcp_catalog::manifest::CatalogLocator;
use flowmcp_catalog::{Catalog, CatalogOptions, ListDiscovery};
use flowmcp_spec::FileReport;
use flowmcp_spec::diagnostic::display_path;
use flowmcp_spec::lists::{ListRegistry, ListScope};

/// One catalog validated as a whole from the files on disk, kept until a file of it is saved.
pub(crate) struct CatalogState {
    /// `None` when the catalog could not be opened (its reports are then empty).
    pub(crate) catalog: Option<Catalog>,
    /// The name reports use for the catalog's directory.
    pub(crate) display: String,
}

/// Where a document is: its catalog's root and its path inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) root: PathBuf,
    pub(crate) rel: String,
}

/// Validation state shared by every document: the options, the discovery of shared lists and
/// the catalogs opened so far.
pub(crate) struct Checker {
    pub(crate) validation: flowmcp_validate::Options,
    discovery: ListDiscovery,
    catalogs: HashMap<PathBuf, Arc<CatalogState>>,
}

impl Checker {
    pub(crate) fn new(validation: flowmcp_validate::Options) -> Checker {
        Checker {
            validation,
            discovery: ListDiscovery::new(),
            catalogs: HashMap::new(),
        }
    }

    /// Forgets what was read from disk (after a save or a change on disk): shared lists and
    /// catalogs are read again when next asked for.
    pub(crate) fn forget(&mut self) {
        self.discovery = ListDiscovery::new();
        self.catalogs.clear();
    }

    /// The catalog `path` lies in, as `validate` finds it (the nearest folder above with a
    /// `registry.json` that is not a grading list).
    pub(crate) fn place(&self, path: &Path) -> Option<Place> {
        CatalogLocator::new(&self.discovery)
            .locate(path)
            .map(|(root, rel)| Place { root, rel })
    }

    /// The name a document's report carries.
    pub(crate) fn display(&mut self, path: &Path, place: Option<&Place>) -> String {
        match place {
            Some(p) => format!("{}/{}", self.catalog(&p.root).display, p.rel),
            None => display_path(path),
        }
    }

    /// The catalog at `root`, validated once from disk.
    pub(crate) fn catalog(&mut self, root: &Path) -> Arc<CatalogState> {
        if let Some(c) = self.catalogs.get(root) {
            return Arc::clone(c);
        }
        let mut opts = CatalogOptions::new(self.validation.settings.profile);
        opts.validation = self.validation.clone();
        let catalog = match Catalog::open(root, &opts) {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::warn!(
                    "{}: the catalog could not be opened: {e}",
                    display_path(root)
                );
                None
            }
        };
        let state = Arc::new(CatalogState {
            catalog,
            display: display_path(root),
        });
        self.catalogs.insert(root.to_path_buf(), Arc::clone(&state));
        state
    }

    /// The shared lists the file at `path` sees (its catalog's `_lists/`, or the nearest).
    pub(crate) fn scope(&self, path: &Path, display: &str) -> ListScope {
        self.discovery.scope_for(path, display, &self.validation)
    }

    /// The registry of the shared lists the file at `path` sees, when there is one.
    pub(crate) fn registry(&self, path: &Path) -> Option<Arc<ListRegistry>> {
        match self.scope(path, &display_path(path)) {
            ListScope::Found(r) => Some(r),
            _ => None,
        }
    }

    /// The `_lists/` folder the file at `path` sees.
    pub(crate) fn lists_dir(&self, path: &Path) -> Option<PathBuf> {
        self.discovery.lists_dir_for(path)
    }

    /// Checks `text`, the buffer of the file at `path` (`None`: a buffer with no file, named
    /// `name`). A file of a catalog whose buffer is what is saved gets its report from the whole
    /// catalog (every check across files); an edited buffer gets its own rules with the catalog's
    /// shared lists. Findings carry the fixes their rules build; those of the catalog's rewrites
    /// come from [`Checker::attach_fixes`], asked for only when code actions are.
    pub(crate) fn check(&mut self, path: Option<&Path>, name: &str, text: &str) -> FileReport {
        let (display, scope, place) = self.context(path, name);
        let saved = path.is_some_and(|path| {
            flowmcp_files::named::read_capped_text(path, self.validation.limits.max_file_bytes)
                .is_ok_and(|disk| disk == text)
        });
        let from_catalog = match &place {
            Some(p) if saved => {
                let state = self.catalog(&p.root);
                state
                    .catalog
                    .as_ref()
                    .and_then(|c| c.reports().iter().find(|r| r.file() == display).cloned())
            }
            _ => None,
        };
        from_catalog.unwrap_or_else(|| {
            flowmcp_validate::validate_str(text, &display, &scope, &self.validation)
        })
    }

    /// Gives the findings of `report`, made by [`Checker::check`] of the same text, the fixes of
    /// the catalog's rewrites, as `validate --fix` offers them (each checked to cure its finding
    /// and add no error: one more validation per distinct fix).
    pub(crate) fn attach_fixes(
        &mut self,
        path: Option<&Path>,
        name: &str,
        text: &str,
        report: &mut FileReport,
    ) {
        let (display, scope, _) = self.context(path, name);
        let opts = &self.validation;
        flowmcp_catalog::migrate::attach_fixes(report, text, &display, &scope, opts);
    }

    /// The name a document's findings carry, the shared lists it sees and its catalog.
    fn context(&mut self, path: Option<&Path>, name: &str) -> (String, ListScope, Option<Place>) {
        let Some(path) = path else {
            return (name.to_string(), ListScope::NotSearched, None);
        };
        let place = self.place(path);
        let display = self.display(path, place.as_ref());
        let scope = self.scope(path, &display);
        (display, scope, place)
    }
}
