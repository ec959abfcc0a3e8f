//! The catalog manifest `registry.json` and its `contentHash`. (Being written.)
