//! Integration tests of flowmcp-openapi: the fixture documents (written for these tests) import
//! into files that load and validate with no errors under the spec profile.

use std::path::{Path, PathBuf};

use flowmcp_openapi::{Import, Options, ReviewKind, import_file};
use flowmcp_validate::{Limits, Profile, RuleSettings, Severity, render, validate_str};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn import(name: &str, options: &Options) -> Import {
    import_file(&fixture(name), options).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every file of `import` written to a fresh folder and validated there under the spec profile,
/// with the shared lists it sees (its own `_lists/`); the errors, rendered.
fn errors(import: &Import) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!(
        "flowmcp-openapi-i41-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = flowmcp_files::named::remove_dir_all(&dir);
    let opts = flowmcp_validate::Options::new(Profile::Spec);
    let settings = RuleSettings::new(Profile::Spec);
    for f in import.files() {
        let path = dir.join(f.name());
        if let Some(parent) = path.parent() {
            flowmcp_files::named::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        flowmcp_files::named::write_atomic(&path, f.text().as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut out = Vec::new();
    for f in import.files() {
        let path = dir.join(f.name());
        // A list file is checked on its own (in its own folder's registry it would meet itself).
        let scope = if f.name().starts_with("_lists/") {
            flowmcp_validate::ListScope::NotSearched
        } else {
            flowmcp_validate::lists::scope_near(&path, f.name(), &settings, &Limits::default())
        };
        let report = validate_str(f.text(), f.name(), &scope, &opts);
        for d in report.diagnostics() {
            if d.severity == Severity::Error {
                out.push(format!(
                    "{}\n{}",
                    render::diagnostic_line(d, false),
                    f.text()
                ));
            }
        }
    }
    let _ = flowmcp_files::named::remove_dir_all(&dir);
    out
}

static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[test]
fn i41_every_fixture_imports_into_files_that_validate() {
    for name in [
        "petstore-30.yaml",
        "weather-31.json",
        "library-20.json",
        "broken-ref.yaml",
        "holidaykit-31.yaml",
    ] {
        let import = import(name, &Options::new());
        assert!(!import.files().is_empty(), "{name}: no files");
        let errors = errors(&import);
        assert!(errors.is_empty(), "{name}:\n{}", errors.join("\n"));
    }
}

/// The file of `import` that defines `tool`, and the tool's text (from its key to the next
/// tool's REVIEW lines or key).
fn tool_text<'a>(import: &'a Import, tool: &str) -> &'a str {
    for f in import.files() {
        if f.tools().iter().any(|t| t == tool) {
            let text = f.text();
            let start = text.find(&format!("        {tool}: {{\n")).unwrap_or(0);
            let end = text[start..]
                .find("\n        },\n")
                .map_or(text.len(), |e| start + e);
            return &text[start..end];
        }
    }
    panic!("no tool {tool}");
}

#[test]
fn i41_colliding_names_get_distinct_keys_that_keep_their_locations() {
    let import = import("petstore-30.yaml", &Options::new());
    let t = tool_text(&import, "recordVisit");
    // The path parameter `id` is renamed and still fills the path; the query `id` keeps its
    // name (it is the name sent); the header and the body member of the same name are noted.
    assert!(t.contains("path: '/pets/{{idInPath}}/visits'"), "{t}");
    assert!(
        t.contains("{ position: { key: 'idInPath', value: '{{USER_PARAM}}', location: 'insert' }"),
        "{t}"
    );
    assert!(
        t.contains("{ position: { key: 'id', value: '{{USER_PARAM}}', location: 'query' }"),
        "{t}"
    );
    assert!(
        !t.contains("key: 'id', value: '{{USER_PARAM}}', location: 'body'"),
        "{t}"
    );
    let file = &import.files()[0];
    let kinds: Vec<_> = file
        .reviews()
        .iter()
        .filter(|r| r.tool.as_deref() == Some("recordVisit"))
        .map(|r| (r.kind, r.text.clone()))
        .collect();
    assert!(
        kinds
            .iter()
            .any(|(k, t)| *k == ReviewKind::Collision && t.contains("\"idInPath\""))
    );
    assert!(
        kinds
            .iter()
            .any(|(k, t)| *k == ReviewKind::Collision && t.contains("body member \"id\""))
    );
    assert!(
        kinds
            .iter()
            .any(|(k, t)| *k == ReviewKind::Parameter && t.contains("header parameter \"id\""))
    );
    // A test gives each a value under its own key.
    assert!(t.contains("idInPath: 'rex-42',"), "{t}");
    assert!(t.contains("id: 7,"), "{t}");
    // The optional body's required member is required (a body is always sent).
    assert!(t.contains("{ position: { key: 'reason', value: '{{USER_PARAM}}', location: 'body' }, z: { primitive: 'string()', options: [] } }"), "{t}");
}

#[test]
fn i41_security_schemes_become_server_params_where_the_scheme_puts_them() {
    let pets = import("petstore-30.yaml", &Options::new());
    let t = tool_text(&pets, "getPet");
    assert!(
        t.contains("'X-Clinic-Key': '{{SERVER_PARAM:PETCLINIC_EXAMPLE_CLINIC_KEY}}'"),
        "{t}"
    );
    assert!(
        pets.files()[0]
            .text()
            .contains("requiredServerParams: [ 'PETCLINIC_EXAMPLE_CLINIC_KEY' ]")
    );
    // Optional security (`- {}`): no credentials, a note.
    let t = tool_text(&pets, "listItems");
    assert!(!t.contains("SERVER_PARAM"), "{t}");
    let store = pets.files().iter().find(|f| f.name() == "store.mjs");
    let store = store.unwrap_or_else(|| panic!("no store.mjs"));
    assert!(!store.text().contains("requiredServerParams"));
    assert!(
        store
            .reviews()
            .iter()
            .any(|r| r.kind == ReviewKind::Security && r.text.contains("optional"))
    );
    // A required header with one value is sent fixed.
    assert!(t.contains("'X-Trace': 'on'"), "{t}");

    let library = import("library-20.json", &Options::new());
    let t = tool_text(&library, "getBooks");
    assert!(t.contains("{ position: { key: 'key', value: '{{SERVER_PARAM:CITYLIBRARY_EXAMPLE_LIB_KEY}}', location: 'query' }"), "{t}");
    // The operation's own security wins over the document's.
    let t = tool_text(&library, "addBook");
    assert!(
        t.contains("Authorization: 'Basic {{SERVER_PARAM:CITYLIBRARY_EXAMPLE_STAFF}}'"),
        "{t}"
    );
    assert!(!t.contains("LIB_KEY"), "{t}");

    let weather = import("weather-31.json", &Options::new());
    let t = tool_text(&weather, "getCurrent");
    assert!(
        t.contains("Authorization: 'Bearer {{SERVER_PARAM:SKYLINE_WEATHER_EXAMPLE_BEARER}}'"),
        "{t}"
    );
    let account = weather.files().iter().find(|f| f.name() == "account.mjs");
    let account = account.unwrap_or_else(|| panic!("no account.mjs"));
    assert!(
        account
            .text()
            .contains("Authorization: 'Bearer {{SERVER_PARAM:SKYLINE_WEATHER_EXAMPLE_OAUTH}}'")
    );
    assert!(
        account
            .reviews()
            .iter()
            .any(|r| r.kind == ReviewKind::Security && r.text.contains("clientCredentials"))
    );
}

#[test]
fn i41_refs_resolve_in_the_folder_cycles_are_cut_and_outside_refs_refused() {
    let pets = import("petstore-30.yaml", &Options::new());
    // `common.yaml#/components/schemas/Owner`, a file beside the document, is resolved.
    let t = tool_text(&pets, "getPet");
    assert!(
        t.contains("phone: { type: 'string', nullable: true }"),
        "{t}"
    );
    // Node.next points back at Node: cut, with a note.
    let reviews = pets.files()[0].reviews();
    assert!(
        reviews
            .iter()
            .any(|r| r.kind == ReviewKind::Ref && r.tool.as_deref() == Some("recordVisit"))
    );

    let half = import("broken-ref.yaml", &Options::new());
    assert_eq!(half.files().len(), 1);
    assert_eq!(half.files()[0].tools(), ["good"]);
    assert_eq!(half.failed().len(), 2, "{:?}", half.failed());
    assert!(half.failed()[0].contains("broken-ref.yaml#/paths/~1bad/get/parameters/0"));
    assert!(half.failed()[0].contains("../outside.yaml#/components/parameters/Q"));
    assert!(half.failed()[0].contains("leaves the document's folder"));
    assert!(half.failed()[1].contains("#/paths/~1missing/get/parameters/0"));
}

#[test]
fn i41_files_hold_at_most_eight_tools_grouped_by_tag_and_tags_select() {
    let weather = import("weather-31.json", &Options::new());
    let names: Vec<(&str, usize)> = weather
        .files()
        .iter()
        .map(|f| (f.name(), f.tools().len()))
        .collect();
    assert_eq!(
        names,
        [
            ("account.mjs", 1),
            ("forecast.mjs", 8),
            ("forecast-2.mjs", 1),
            // `units` has the same enum in all 9 forecast tools: a shared list.
            ("_lists/skylineWeatherExampleUnits.mjs", 0)
        ]
    );
    assert!(
        weather
            .files()
            .iter()
            .filter(|f| !f.tools().is_empty())
            .all(|f| f.text().contains("namespace: 'skyline-weather-example'"))
    );
    // The required array body cannot become parameters (the format's body parameters are
    // members of an object): the operation is dropped with its pointer and reason, not failed.
    assert!(weather.failed().is_empty(), "{:?}", weather.failed());
    assert_eq!(weather.dropped().len(), 1);
    assert_eq!(weather.dropped()[0].pointer, "/paths/~1v3~1export/post");
    assert!(
        weather.dropped()[0]
            .reason
            .contains("required and is array")
    );

    let only = import(
        "weather-31.json",
        &Options::new().with_tags(vec!["Account".into()]),
    );
    assert_eq!(only.files().len(), 1);
    assert_eq!(only.files()[0].tools(), ["subscribe"]);
    let errors = errors(&only);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn i41_mapping_of_info_servers_types_tests_and_meta() {
    let pets = import("petstore-30.yaml", &Options::new());
    let text = pets.files()[0].text();
    // The namespace is the host without the label a server variable filled (`{region}`).
    assert_eq!(pets.namespace(), "petclinic-example");
    // Server variables take their defaults, https is preferred, no trailing slash.
    assert!(
        text.contains("root: 'https://eu.petclinic.example/v2',"),
        "{text}"
    );
    assert!(text.contains("docs: [ 'https://docs.petclinic.example/api' ]"));
    assert!(text.contains("tags: [ 'pets' ]"));
    let t = tool_text(&pets, "listPets");
    // `species` has the same values in two tools: a shared list of the namespace.
    assert!(
        t.contains(
            "z: { primitive: 'enum({{petclinicExampleSpecies:value}})', options: [ 'optional()' ] }"
        ),
        "{t}"
    );
    assert!(
        text.contains("sharedLists: [ { ref: 'petclinicExampleSpecies', version: '1.0.0' } ]"),
        "{text}"
    );
    let list = pets
        .files()
        .iter()
        .find(|f| f.name() == "_lists/petclinicExampleSpecies.mjs");
    let list = list.unwrap_or_else(|| panic!("no list"));
    assert!(
        list.text()
            .contains("entries: [ { value: 'cat' }, { value: 'dog' }, { value: 'bird' } ]")
    );
    assert!(
        t.contains(
            "z: { primitive: 'number()', options: [ 'min(1)', 'max(100)', 'default(20)' ] }"
        ),
        "{t}"
    );
    assert!(
        t.contains("z: { primitive: 'string()', options: [ 'length(2)', 'optional()' ] }"),
        "{t}"
    );
    assert!(
        t.contains("// REVIEW: [type] an integer is expected"),
        "{t}"
    );
    assert!(t.contains("isReadOnly: true"), "{t}");
    // A description that repeats the summary is used alone, without its HTML.
    let t = tool_text(&pets, "createPet");
    assert!(
        t.contains("description: 'Add a pet to the clinic.',"),
        "{t}"
    );
    let t = tool_text(&pets, "deletePet");
    assert!(t.contains("isDestructive: true"), "{t}");
    // PATCH has no tool method: dropped, with the reason.
    assert_eq!(pets.dropped().len(), 1);
    assert!(pets.dropped()[0].pointer.ends_with("/patch"));
    // Tests come from examples and enum values; made-up values are noted.
    let library = import("library-20.json", &Options::new());
    let t = tool_text(&library, "getBooks");
    assert!(t.contains("q: 'tolkien'"), "{t}");
    // A required header with only an example is sent as that example, with a note.
    assert!(t.contains("'X-Branch': 'central'"), "{t}");
    assert!(library.files()[0].reviews().iter().any(|r| {
        r.kind == ReviewKind::Parameter
            && r.text
                .contains("\"X-Branch\" is sent as \"central\" (the document's example")
    }));
    let t = tool_text(&library, "lendBook");
    assert!(
        t.contains("// REVIEW: [test] the document gives no example for \"member\""),
        "{t}"
    );
    assert!(
        library.files()[0]
            .text()
            .contains("root: 'https://api.citylibrary.example/v1',")
    );
}

#[test]
fn i41_bad_input_is_a_typed_error_naming_the_document() {
    let not = flowmcp_openapi::import_str("{\"hello\": 1}", "x.json", &Options::new());
    assert!(
        matches!(not, Err(flowmcp_openapi::ImportError::NotOpenApi { ref document }) if document == "x.json")
    );
    let old = flowmcp_openapi::import_str("swagger: '1.2'\n", "old.yaml", &Options::new());
    let msg = old.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        msg.contains("old.yaml#/swagger") && msg.contains("1.2"),
        "{msg}"
    );
    let bad = flowmcp_openapi::import_str(": : :\n  - [", "bad.yaml", &Options::new());
    assert!(matches!(
        bad,
        Err(flowmcp_openapi::ImportError::Parse { .. })
    ));
    let ns = import_file(
        &fixture("petstore-30.yaml"),
        &Options::new().with_namespace("Bad_NS"),
    );
    assert!(matches!(
        ns,
        Err(flowmcp_openapi::ImportError::Namespace { .. })
    ));
    // Without a folder, a reference to another file is refused.
    let text = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      parameters: [{$ref: 'other.yaml#/P'}]\n      responses: {}\n";
    let r = flowmcp_openapi::import_str(text, "t.yaml", &Options::new());
    let r = r.unwrap_or_else(|e| panic!("{e}"));
    assert!(r.files().is_empty());
    assert!(r.failed()[0].contains("leaves the document's folder"));
}

#[test]
fn i41_small_untagged_path_groups_share_files() {
    let mut paths = Vec::new();
    for p in [
        "/alpha", "/beta", "/gamma", "/delta/1", "/delta/2", "/delta/3",
    ] {
        paths.push(format!(
            "\"{p}\": {{\"get\": {{\"responses\": {{\"200\": {{\"description\": \"ok\"}}}}}}}}"
        ));
    }
    let doc = format!(
        "{{\"openapi\": \"3.0.0\", \"info\": {{\"title\": \"T\", \"version\": \"1\"}}, \
         \"servers\": [{{\"url\": \"https://t.example\"}}], \"paths\": {{{}}}}}",
        paths.join(", ")
    );
    let import = flowmcp_openapi::import_str(&doc, "t.json", &Options::new())
        .unwrap_or_else(|e| panic!("{e}"));
    let files: Vec<(&str, Vec<String>)> = import
        .files()
        .iter()
        .map(|f| (f.name(), f.tools().to_vec()))
        .collect();
    assert_eq!(
        files,
        [
            (
                "api.mjs",
                vec!["getAlpha".to_string(), "getBeta".into(), "getGamma".into()]
            ),
            (
                "delta.mjs",
                vec![
                    "getDelta1".to_string(),
                    "getDelta2".into(),
                    "getDelta3".into()
                ]
            ),
        ]
    );
    let errors = errors(&import);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn i41_every_review_kind_has_its_section_on_the_markers_page() {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/import-review.md");
    let text = flowmcp_files::named::read_to_string(&page).unwrap_or_else(|e| panic!("{e}"));
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("## `")).collect();
    let kinds: Vec<String> = ReviewKind::ALL
        .iter()
        .map(|k| format!("## `{}` —", k.as_str()))
        .collect();
    assert_eq!(headings.len(), kinds.len(), "{headings:?}");
    for (h, k) in headings.iter().zip(&kinds) {
        assert!(h.starts_with(k.as_str()), "{h} is not {k}");
    }
}

#[test]
fn i41_no_shared_list_holds_the_values_of_an_enum_that_stays_inline() {
    // `mode` (a,b,c) is shared by two tools, `sub` (a,b) is used once and is part of it: a list
    // for `mode` would make `sub` a duplicate of the list (VAL107), so neither is shared.
    // `size` (s,m,l) is shared and nothing inline is part of it.
    let op = |id: &str, params: &str| {
        format!(
            "\"get\": {{\"operationId\": \"{id}\", \"parameters\": [{params}], \
             \"responses\": {{\"200\": {{\"description\": \"ok\"}}}}}}"
        )
    };
    let p = |name: &str, values: &str| {
        format!(
            "{{\"name\": \"{name}\", \"in\": \"query\", \"schema\": {{\"type\": \"string\", \"enum\": [{values}]}}}}"
        )
    };
    let abc = "\"a\", \"b\", \"c\"";
    let sml = "\"s\", \"m\", \"l\"";
    let doc = format!(
        "{{\"openapi\": \"3.0.0\", \"info\": {{\"title\": \"T\", \"version\": \"1\"}}, \
         \"servers\": [{{\"url\": \"https://t.example\"}}], \"paths\": {{\
         \"/one\": {{{}}}, \"/two\": {{{}}}, \"/three\": {{{}}}}}}}",
        op("one", &format!("{}, {}", p("mode", abc), p("size", sml))),
        op("two", &format!("{}, {}", p("mode", abc), p("size", sml))),
        op("three", &p("sub", "\"a\", \"b\"")),
    );
    let import = flowmcp_openapi::import_str(&doc, "t.json", &Options::new())
        .unwrap_or_else(|e| panic!("{e}"));
    let lists: Vec<&str> = import
        .files()
        .iter()
        .map(|f| f.name())
        .filter(|n| n.starts_with("_lists/"))
        .collect();
    assert_eq!(lists, ["_lists/tExampleSize.mjs"]);
    let text: String = import.files().iter().map(|f| f.text()).collect();
    assert!(text.contains("'enum(a,b,c)'"), "{text}");
    assert!(text.contains("'enum({{tExampleSize:value}})'"), "{text}");
    let errors = errors(&import);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// A one-file OpenAPI 3.0 document of `paths` (JSON text), imported.
fn import_paths(paths: &str) -> Import {
    let doc = format!(
        "{{\"openapi\": \"3.0.0\", \"info\": {{\"title\": \"T\", \"version\": \"1\"}}, \
         \"servers\": [{{\"url\": \"https://t.example\"}}], \"paths\": {{{paths}}}}}"
    );
    flowmcp_openapi::import_str(&doc, "t.json", &Options::new()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn i41_test_values_follow_the_format_and_pattern() {
    let import = import_paths(
        r#""/rooms/{roomId}/keys/{keyId}": {"get": {"operationId": "getKey", "parameters": [
            {"name": "roomId", "in": "path", "required": true,
             "schema": {"type": "string", "pattern": "^RM[0-9a-fA-F]{16}$"}},
            {"name": "keyId", "in": "path", "required": true,
             "schema": {"type": "string", "format": "uuid"}, "example": "0f0f0f0f0f0f0f0f"},
            {"name": "floor", "in": "query", "required": true,
             "schema": {"type": "string", "pattern": "^(ground|upper)$"}, "example": "cellar"}],
          "responses": {"200": {"description": "ok"}}}}"#,
    );
    let t = tool_text(&import, "getKey");
    // Made up from the pattern, and from the format.
    assert!(t.contains("roomId: 'RMaaaaaaaaaaaaaaaa'"), "{t}");
    assert!(
        t.contains("keyId: '123e4567-e89b-42d3-a456-426614174000'"),
        "{t}"
    );
    assert!(t.contains("floor: 'ground'"), "{t}");
    // The document's examples that break its own format or pattern are not used, and named.
    assert!(!t.contains("0f0f0f0f0f0f0f0f'"), "{t}");
    assert!(!t.contains("'cellar'"), "{t}");
    let reviews = import.files()[0].reviews();
    assert!(reviews.iter().any(|r| {
        r.kind == ReviewKind::Test
            && r.text
                .contains("\"0f0f0f0f0f0f0f0f\" breaks its own format or pattern")
    }));
    // A pattern beyond the generator is said to be unfollowed.
    let import = import_paths(
        r#""/a/{id}": {"get": {"operationId": "getA", "parameters": [
            {"name": "id", "in": "path", "required": true,
             "schema": {"type": "string", "pattern": "^(?=x)[a-z]+$"}}],
          "responses": {"200": {"description": "ok"}}}}"#,
    );
    assert!(
        import.files()[0]
            .reviews()
            .iter()
            .any(|r| r.kind == ReviewKind::Test && r.text.contains("does not follow its pattern"))
    );
    let errors = errors(&import);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn i41_bodies_the_format_cannot_send_drop_the_operation_or_are_left_out() {
    let forms = import_paths(
        r#""/upload": {"post": {"operationId": "upload", "requestBody": {"required": true,
            "content": {"multipart/form-data": {"schema": {"type": "object",
              "properties": {"file": {"type": "string", "format": "binary"}}}}}},
          "responses": {"200": {"description": "ok"}}}},
        "/notes": {"post": {"operationId": "addNote", "requestBody": {
            "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object",
              "properties": {"text": {"type": "string"}}}}}},
          "responses": {"200": {"description": "ok"}}}}"#,
    );
    assert_eq!(forms.dropped().len(), 1);
    assert_eq!(forms.dropped()[0].pointer, "/paths/~1upload/post");
    assert!(
        forms.dropped()[0]
            .reason
            .contains("multipart/form-data only")
    );
    let t = tool_text(&forms, "addNote");
    assert!(!t.contains("'text'"), "{t}");
    assert!(
        forms.files()[0]
            .reviews()
            .iter()
            .any(|r| r.kind == ReviewKind::Parameter
                && r.text.contains("application/x-www-form-urlencoded only"))
    );
    // Swagger 2.0 form fields: a required one drops the operation, optional ones are left out.
    let library = import("library-20.json", &Options::new());
    assert!(
        library
            .dropped()
            .iter()
            .any(|d| d.pointer == "/paths/~1books~1{isbn}~1returns/post"
                && d.reason.contains("\"desk\" is required"))
    );
    let t = tool_text(&library, "noteReturn");
    assert!(!t.contains("remark"), "{t}");
}

#[test]
fn i41_swagger_x_nullable_is_nullable_in_output_schemas() {
    let import = import_paths(
        r#""/day": {"get": {"operationId": "getDay", "responses": {"200": {"description": "ok",
            "content": {"application/json": {"schema": {"type": "object", "properties": {
              "summary": {"type": "string", "x-nullable": true},
              "high": {"type": "number"}}}}}}}}}"#,
    );
    let t = tool_text(&import, "getDay");
    assert!(
        t.contains("summary: { type: 'string', nullable: true }"),
        "{t}"
    );
    assert!(t.contains("high: { type: 'number' }"), "{t}");
}

#[test]
fn i41_required_headers_without_a_value_come_from_server_parameters() {
    let import = import_paths(
        r#""/keys/{serial}": {"delete": {"operationId": "dropKey", "parameters": [
            {"name": "serial", "in": "path", "required": true, "schema": {"type": "string"}},
            {"name": "X-Shop-Key", "in": "header", "required": true, "schema": {"type": "string"}},
            {"name": "X-Note", "in": "header", "schema": {"type": "string"}}],
          "responses": {"204": {"description": "gone"}}}}"#,
    );
    let t = tool_text(&import, "dropKey");
    assert!(
        t.contains("'X-Shop-Key': '{{SERVER_PARAM:T_EXAMPLE_X_SHOP_KEY}}'"),
        "{t}"
    );
    assert!(!t.contains("'X-Note'"), "{t}");
    assert!(
        import.files()[0]
            .text()
            .contains("requiredServerParams: [ 'T_EXAMPLE_X_SHOP_KEY' ]"),
        "{}",
        import.files()[0].text()
    );
    let errors = errors(&import);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// A required `Authorization` header parameter (which OpenAPI's letter ignores) is the API asking
/// for credentials outside its security schemes: it comes from a server parameter, never from the
/// document's example token; an optional one is left out, and a security scheme's header wins.
#[test]
fn i41_a_required_authorization_parameter_comes_from_a_server_parameter() {
    let import = import_paths(
        r#""/me": {"get": {"operationId": "whoAmI", "parameters": [
            {"name": "Authorization", "in": "header", "required": true,
             "schema": {"type": "string"}, "example": "Bearer abc123"}],
          "responses": {"200": {"description": "ok"}}}},
          "/you": {"get": {"operationId": "whoAreYou", "parameters": [
            {"name": "Authorization", "in": "header", "schema": {"type": "string"}}],
          "responses": {"200": {"description": "ok"}}}}"#,
    );
    let me = tool_text(&import, "whoAmI");
    assert!(
        me.contains("Authorization: '{{SERVER_PARAM:T_EXAMPLE_AUTHORIZATION}}'"),
        "{me}"
    );
    assert!(!me.contains("abc123"), "{me}");
    assert!(!tool_text(&import, "whoAreYou").contains("Authorization"));
    let errors = errors(&import);
    assert!(errors.is_empty(), "{}", errors.join("\n"));

    let doc = r#"{"openapi": "3.0.0", "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://t.example"}],
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}],
        "paths": {"/me": {"get": {"operationId": "whoAmI", "parameters": [
            {"name": "Authorization", "in": "header", "required": true, "schema": {"type": "string"}}],
          "responses": {"200": {"description": "ok"}}}}}}"#;
    let import = flowmcp_openapi::import_str(doc, "t.json", &Options::new())
        .unwrap_or_else(|e| panic!("{e}"));
    let me = tool_text(&import, "whoAmI");
    assert!(
        me.contains("Bearer {{SERVER_PARAM:T_EXAMPLE_BEARER}}"),
        "{me}"
    );
    assert!(!me.contains("T_EXAMPLE_AUTHORIZATION"), "{me}");
    assert!(
        !import.files()[0].text().contains("T_EXAMPLE_AUTHORIZATION"),
        "{}",
        import.files()[0].text()
    );
}

#[test]
fn i41_made_up_arrays_and_objects_hold_their_required_members() {
    let import = import_paths(
        r#""/alarms": {"post": {"operationId": "ackAlarms", "requestBody": {"required": true,
            "content": {"application/json": {"schema": {"type": "object",
              "required": ["acks", "where"],
              "properties": {
                "acks": {"type": "array", "items": {"type": "object", "required": ["alarmId", "level"],
                  "properties": {"alarmId": {"type": "string", "pattern": "^AL-[0-9]{4}$"},
                    "level": {"type": "integer", "minimum": 2, "maximum": 5},
                    "note": {"type": "string"}}}},
                "where": {"type": "object", "required": ["site"],
                  "properties": {"site": {"type": "string", "enum": ["north", "south"]}}}}}}}},
          "responses": {"200": {"description": "ok"}}}}"#,
    );
    let t = tool_text(&import, "ackAlarms");
    assert!(
        t.contains("acks: [ { alarmId: 'AL-0000', level: 2 } ]"),
        "{t}"
    );
    assert!(t.contains("where: { site: 'north' }"), "{t}");
    let errors = errors(&import);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn i41_an_enum_keeps_its_values_when_they_break_the_format() {
    // `now` is no date-time, but it is the only value the enum allows: the tests use it.
    let import = import_paths(
        r#""/sends/{id}/schedule": {"put": {"operationId": "schedule", "parameters": [
            {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
          "requestBody": {"required": true, "content": {"application/json": {"schema": {
            "type": "object", "required": ["send_at"], "properties": {
              "send_at": {"type": "string", "format": "date-time", "enum": ["now"]}}}}}},
          "responses": {"200": {"description": "ok"}}}}"#,
    );
    let t = tool_text(&import, "schedule");
    assert!(t.contains("send_at: 'now'"), "{t}");
    let errors = errors(&import);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
