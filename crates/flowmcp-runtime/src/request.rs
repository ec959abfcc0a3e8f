//! (Being written for the runtime issue.)
