//! IDs: Primitive-IDs (`namespace/type/name`) and Schema-File-IDs (`namespace/schema-name`). (Being written.)
