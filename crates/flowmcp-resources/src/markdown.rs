//! Markdown resources: the whole text, one section, a line range, or a search.
