//! Hand-written prose for the rule pages: what each rule checks and why it exists.
//!
//! `cargo xtask docs` puts these under "What it checks" and "Why" in `docs/rules/<CODE>.md`. The text is
//! Markdown. Every implemented code must have an entry (a test below enforces it); codes that are planned
//! or not emitted may have one, and otherwise get a generic line about their status.

use flowmcp_spec::Code;

/// The scan note shared by the static-scan codes.
const SCAN: &str = "The static scan reads the raw file before it is evaluated, with the contents of \
    comments and string literals blanked (template-literal text too, `${…}` expressions kept), and \
    matches whole identifiers only. Every match is reported with its line and column; a file with \
    error-level findings is not evaluated.";

/// `(what it checks, why)` for `code`, or `None` when no text has been written.
pub fn rationale(code: Code) -> Option<(&'static str, &'static str)> {
    use Code::*;
    let pair = match code {
        // --- Schema structure -------------------------------------------------------------------
        VAL001 => (
            "A module that looks like a schema, because it exports `handlers`, but has no named \
             `main` export. A file with no recognised export at all is LDR008 instead.",
            "`main` is the declarative part of a schema: namespace, tools, parameters. Without it the \
             runtime has nothing to register and the handlers have no tools to attach to.",
        ),
        VAL002 => (
            "`main` is exported but is not a plain object (an array, a string, `null`, …). A `main` \
             that cannot be serialised at all, such as a function, is reported as SEC017 instead.",
            "Every other schema rule reads fields of `main`, and the runtime hashes and ships it as a \
             JSON object.",
        ),
        VAL003 => (
            "Keys of `main`, of each tool and of each parameter that the specification does not \
             define (the allowed keys are listed in ruling N-19). Each unknown key is reported at its \
             JSON path; `main.meta` and `main.handlers` get a hint saying where they belong. \
             `main.skills` is VAL016's business.",
            "A misspelt or misplaced key (`desciption`, a tool's `outputSchema`) does nothing: the \
             runtime ignores it while the author believes it is in effect. Under `compat` this is a \
             warning because catalogs written for the JavaScript reference carry such keys, and \
             `outputSchema` is read as `output` when `output` is absent.",
        ),
        VAL004 => (
            "The module exports `handlers`, but it is not a function (for example a plain object of \
             hooks).",
            "Handlers are a factory, `handlers( { sharedLists, libraries } )`, so that the runtime can \
             inject the frozen shared lists and the approved libraries. An object cannot receive them.",
        ),
        VAL005 => (
            "The `handlers` factory is called once in the sandbox and every key of the object it \
             returns that names no tool in `main.tools` is reported (a warning). If the factory \
             throws, the check is skipped.",
            "A handler keyed by a misspelt or removed tool name is never called, so the \
             transformation it implements silently stops applying.",
        ),
        // --- main: required fields --------------------------------------------------------------
        VAL010 => (
            "`main.namespace` is missing or not a string.",
            "The namespace identifies the provider. It prefixes every ID (`namespace/tool/name`) and \
             every MCP wire name, so no schema can do without one.",
        ),
        VAL011 => (
            "`main.namespace` does not match `^[a-z][a-z0-9-]*$`: lowercase letters, digits and \
             hyphens, starting with a letter.",
            "Namespaces appear in IDs, directory names and MCP tool names (`getAbi_etherscan-io`). A \
             small alphabet keeps them portable across file systems and clients and unambiguous to \
             parse.",
        ),
        VAL012 => (
            "`main.name` is missing or not a string.",
            "The human-readable name is what catalogs and tool listings show for the provider.",
        ),
        VAL013 => (
            "`main.description` is missing or not a string.",
            "The description tells people and AI clients what the provider offers; catalogs use it \
             for discovery.",
        ),
        VAL014 => (
            "`main.version` is missing, not a string, or not of the form `4.x.y` (digits only). A \
             `3.x.y` version is the `v3` variant: accepted with a deprecation warning.",
            "The version says which edition of the specification the schema follows. Version 4 \
             changed formats (tools instead of routes, `meta` blocks, factory handlers), so the \
             runtime must know which rules apply. Most 3.x schemas still load, hence only a warning \
             for them.",
        ),
        VAL015 => (
            "`main.root` is missing or empty while `main.tools` has entries, or it is not a string. \
             When every tool has an `executeRequest` handler, a missing or empty root is the \
             `handlers-only` variant, a warning under `compat`.",
            "Every request URL is `root` + `path`; without a root the runtime cannot call the API. \
             Schemas whose handlers perform every request never use the root, which the JavaScript \
             reference tolerates, hence the `compat` relaxation.",
        ),
        VAL016 => (
            "`main.tools` (or the deprecated `main.routes`) is missing, not an object, or has an \
             entry that is not an object. An empty `{}` is accepted only when the schema defines \
             `resources` or `prompts`. `main.skills` is reported here too: skills are registered in \
             selections, agents or `providers/<namespace>/skills/`.",
            "Tools are what a schema provides; a schema with nothing to offer is almost certainly a \
             mistake. Skills moved out of `main` in version 4.",
        ),
        VAL017 => (
            "`main` defines both `tools` and `routes`.",
            "`routes` is the old name of `tools`. With both present it is unclear which set the \
             runtime should register.",
        ),
        VAL018 => (
            "`main.routes` is used instead of `main.tools` (a warning).",
            "`routes` still loads, but the specification and current tooling use `tools`; the rename \
             is mechanical.",
        ),
        // --- main: optional fields --------------------------------------------------------------
        VAL020 => (
            "`main.docs`, when present, is not an array, or one of its entries is not a string (each \
             bad entry is reported with its index).",
            "Documentation links are rendered and checked by catalogs, which expects plain URL \
             strings.",
        ),
        VAL021 => (
            "`main.tags`, when present, is not an array, or one of its entries is not a string.",
            "Tags drive search and grouping in catalogs and are compared as strings.",
        ),
        VAL022 => (
            "`main.requiredServerParams`, when present, is not an array, or one of its entries is \
             not a string.",
            "The runtime reads each named variable from the environment, substitutes it into URLs \
             and headers, and hides the tools whose variables are missing. It needs plain names.",
        ),
        VAL023 => (
            "`main.headers`, when present, is not a plain object, or one of its values is not a \
             string.",
            "These headers are sent with every request of the schema, and HTTP header values are \
             text.",
        ),
        VAL024 => (
            "`main.sharedLists`, when present, is not an array, or one of its entries is not an \
             object.",
            "Each entry is a reference `{ ref, version, filter }` that the runtime resolves, \
             version-checks and filters at load time.",
        ),
        VAL025 => (
            "`main.requiredLibraries`, when present, is not an array, or one of its entries is not a \
             string.",
            "Each entry names an npm package that is checked against the allowlist (SEC020) and \
             injected into the `handlers` factory by name.",
        ),
        // --- tools ------------------------------------------------------------------------------
        VAL030 => (
            "A key of `main.tools` does not match `^[a-z][a-zA-Z0-9]*$` (camelCase, starting with a \
             lowercase letter).",
            "Tool names become part of IDs (`namespace/tool/name`) and MCP wire names \
             (`getAbi_etherscan-io`), which allow only a restricted set of characters. Under `compat` \
             a name such as `'/block/:id'` is a warning and a sanitised name is used for the ID and \
             the wire name.",
        ),
        VAL031 => (
            "`main.tools` has more than 8 entries.",
            "Small schemas keep each provider's tool set focused and cheap to put into an agent's \
             context. Split a large API into several schemas.",
        ),
        VAL032 => (
            "A tool's `method` is missing or is not exactly one of `GET`, `POST`, `PUT` and \
             `DELETE`.",
            "The runtime builds the HTTP request from it, and it decides whether `body` parameters \
             are allowed.",
        ),
        VAL033 => (
            "A tool's `path` is missing, not a string, or does not start with `/`.",
            "The request URL is `root` + `path`; without the leading slash the path would run into \
             the host name.",
        ),
        VAL034 => (
            "A tool's `description` is missing or not a string.",
            "AI clients choose tools by their descriptions; a tool without one is effectively \
             invisible to them.",
        ),
        VAL035 => (
            "A tool's `parameters` is missing or not an array (an empty `[]` is fine).",
            "The parameter list defines the tool's input schema and how the request is built; an \
             explicit `[]` states that the tool takes no input.",
        ),
        VAL036 => (
            "A tool has no `output` block (a warning).",
            "An output schema tells AI clients the shape of the response before they call the tool, \
             and lets the runtime check what handlers return. Leaving it out is allowed but \
             discouraged for new schemas.",
        ),
        VAL037 => (
            "A tool sets the `async` field (reported as info).",
            "`async` is reserved for future task support. The runtime ignores it, so the author \
             should know it has no effect.",
        ),
        // --- parameters -------------------------------------------------------------------------
        VAL040 => (
            "A parameter is not an object, or lacks a `position` object or a `z` object.",
            "`position` says where the value goes in the request and `z` how it is validated; the \
             specification rejects a parameter without either at load time.",
        ),
        VAL041 => (
            "`position.key` is missing, empty or not a string.",
            "The key names the query field, the body field or the path placeholder, and it is the \
             input name AI clients see.",
        ),
        VAL042 => (
            "`position.value` is missing or not a string.",
            "The value says where the parameter's value comes from: `{{USER_PARAM}}` (the caller), a \
             server-parameter placeholder (the environment) or a fixed string.",
        ),
        VAL043 => (
            "`position.location` is not one of `insert`, `query` and `body`.",
            "The location decides whether the value is substituted into the path, appended as a \
             query parameter or sent in the JSON body; anything else cannot be placed.",
        ),
        VAL044 => (
            "`z.primitive` is missing, not a string, or not one of `string()`, `number()`, \
             `boolean()`, `enum(…)`, `array()` and `object()` (names are case-sensitive). Under `spec`, \
             enum values padded with spaces (`enum(GET, POST)`) are invalid too.",
            "The primitive is the parameter's type and becomes the tool's input schema. The \
             JavaScript reference silently falls back to `string()` on an unknown name, which hides \
             typos such as `Number()`.",
        ),
        VAL045 => (
            "`z.options` is not an array of strings, or contains an option that is unknown or \
             malformed. The known options are `min(n)`, `max(n)`, `length(n)`, `optional()` and \
             `default(value)`; under `compat`, `values(…)` (extra enum values) and `regex(…)` are \
             accepted as well. A `default(…)` must be readable as a value of the primitive's type.",
            "Options are constraints enforced before the request is sent. An option the runtime does \
             not understand would be ignored, so a constraint the author relies on would silently not \
             apply. The specification leaves out regular expressions on purpose; real catalogs use \
             them, which is why `compat` accepts them.",
        ),
        VAL046 => (
            "An `enum(…)` primitive lists no values (`enum()`).",
            "An enum without values accepts no input, so the tool could never be called.",
        ),
        VAL047 => (
            "A shared-list interpolation `{{list:field}}` appears anywhere but inside `enum(…)` \
             (under `compat` also inside a `values(…)` option): in another primitive such as \
             `string({{evmChains:alias}})`, in another option, or in `root`, a `path`, headers or \
             `position.value`.",
            "Interpolation expands to the comma-separated field values of the list's entries, which \
             only makes sense as the values of an enum.",
        ),
        VAL048 => (
            "An interpolation `{{list:field}}` names a list that no entry of `main.sharedLists` \
             references.",
            "Lists are resolved, version-checked and filtered from the `main.sharedLists` \
             declarations at load time; a list that is not declared cannot be resolved.",
        ),
        VAL049 => (
            "A `{{list:field}}` interpolation, or the `key` of a `main.sharedLists` filter, names a \
             field that the referenced list does not declare in its `meta.fields`; the help lists the \
             fields it has. Checked only when the schema sees a list registry (a `_lists/` directory \
             found walking up from it, see VAL088).",
            "Interpolation replaces the placeholder with that field's values across the list's \
             entries, and a filter keeps the entries whose field matches. A field the list does not \
             have yields nothing: an enum that accepts no value, or a filter that drops every entry.",
        ),
        VAL050 => (
            "Insert parameters and path placeholders must match both ways: every parameter with \
             `location: 'insert'` needs a `{{key}}` in the tool's `path`, and every `{{key}}` in the \
             path needs an insert parameter. Under `compat`, `:key` segments (`/feed/:city`) count \
             as `{{key}}`, a bare `{{KEY}}` naming a `requiredServerParams` entry is that server \
             parameter, and an insert parameter without a placeholder is accepted when the tool's \
             `preRequest` or `executeRequest` handler may consume it.",
            "An insert parameter without a placeholder is never put into the URL, and a placeholder \
             without a parameter is sent literally. Either way the request goes to the wrong URL.",
        ),
        // --- output schema ----------------------------------------------------------------------
        VAL060 => (
            "`output.mimeType` is missing or not one of `application/json`, `image/png` and \
             `text/plain`. (The preload checks that chapter 11 also numbers VAL060–VAL065 are \
             PRE001–PRE006, ruling CC-01.)",
            "The MIME type tells the runtime how to deliver the response (JSON, a base64 image, \
             text) and which schema types can describe it.",
        ),
        VAL061 => (
            "`output` is not an object, or its `schema` is missing or not a valid schema definition: \
             every node (the root and each value of `properties` and `items`) must be an object whose \
             `type` is one of `string`, `number`, `boolean`, `object` and `array`. Under `spec` the \
             nodes may use only the subset's keywords (`type`, `properties`, `items`, \
             `description`, `nullable`, `enum`, `format`) with values of the right type. Under \
             `compat` only the root node is checked, as in the JavaScript reference.",
            "Output schemas use a deliberately small subset of JSON Schema that AI clients, \
             validators and documentation generators read. A malformed one describes nothing.",
        ),
        VAL062 => (
            "`output.schema.type` does not fit the MIME type: `application/json` needs `object` or \
             `array`, `text/plain` needs `string`, and `image/png` needs `string` with \
             `format: 'base64'`.",
            "The runtime decodes the response according to the MIME type, so the declared shape must \
             be one that type can produce.",
        ),
        VAL063 => (
            "The output schema nests deeper than 4 levels, counting the root schema as level 1 and \
             each step into a property or into `items` as one more. One warning per tool, at the \
             first node on level 5, in both profiles (ruling CC-04).",
            "Deeply nested shapes are hard for AI clients to reason about. The data is still usable, \
             which is why CC-04 makes the excess a warning rather than a rejection.",
        ),
        VAL064 => (
            "A schema node declares `properties` but its `type` is not `object`.",
            "`properties` describes the fields of an object. On any other type it means nothing and \
             usually reveals a wrong `type`.",
        ),
        VAL065 => (
            "A schema node declares `items` but its `type` is not `array`.",
            "`items` describes the elements of an array. On any other type it means nothing and \
             usually reveals a wrong `type`.",
        ),
        // --- shared-list references -------------------------------------------------------------
        VAL070 => (
            "An entry of `main.sharedLists` has no `ref`, or its `ref` is empty or not a string.",
            "`ref` names the list in the list registry; without it there is nothing to resolve.",
        ),
        VAL071 => (
            "`sharedLists[].version` is missing or not a semantic version such as `1.0.0`.",
            "A schema pins the exact list version it was written against and the runtime rejects a \
             mismatch, so the pin has to be a valid version.",
        ),
        VAL072 => (
            "An entry of `main.sharedLists` names (`ref`) a list that is not in the list registry the \
             schema sees: no list in the nearest `_lists/` directory has that `meta.name`. The help \
             names the lists that are available. Without a registry the check is skipped (VAL088).",
            "The runtime resolves every reference by name when it loads the schema, and a list that \
             does not exist makes the load fail (chapter 03). Validation points at the typo or the \
             missing list file before a server start does.",
        ),
        VAL073 => (
            "The `version` of a `main.sharedLists` entry is not the `meta.version` of the list it \
             names. The two must be equal; no range of compatible versions is accepted. A version \
             that is not semver at all is left to VAL071.",
            "A schema pins the list version it was written against. A new major version may remove \
             or rename entries and fields, so chapter 03 makes any mismatch a hard error: the schema \
             has to be checked against the current list and its pin updated, as the help suggests.",
        ),
        VAL074 => (
            "The `filter` of a shared-list reference is not one of the three forms \
             `{ key, exists: true }`, `{ key, value }` and `{ key, in: [ … ] }` (ruling N-11): `key` \
             must be a non-empty string (`field` is accepted as its alias), `value` and the items of \
             `in` must be strings, numbers or booleans, `in` must not be empty, and the filter has \
             exactly one operator and no other keys.",
            "The filter selects which list entries reach the schema. Without a valid key the runtime \
             cannot apply it, and the schema would receive the wrong entries.",
        ),
        VAL075 => (
            "A list declared in `main.sharedLists` is used neither by a `{{list:field}}` \
             interpolation in `main` nor by name in the module's code outside `main` (as in \
             `sharedLists.evmChains` or `const { evmChains } = sharedLists`); a warning. When the \
             `main` literal cannot be located in the source, handler use is assumed.",
            "Every declared list is resolved, filtered and frozen at load time. An unused one costs \
             load time and usually points at a leftover declaration or a typo in an interpolation.",
        ),
        // --- project extensions -----------------------------------------------------------------
        VAL080 => (
            "`main.root` does not start with `https://`. An empty root while every tool has an \
             `executeRequest` handler is the `handlers-only` variant, a warning under `compat`.",
            "Requests carry API keys and user input, which plain HTTP would expose. The runtime \
             speaks HTTPS only and also refuses redirects that leave HTTPS.",
        ),
        VAL081 => (
            "`main.root` ends with `/`.",
            "Paths start with `/` (VAL033), so a root that ends with one produces `//` in every URL, \
             which many servers treat as a different resource.",
        ),
        VAL082 => (
            "A parameter with `location: 'body'` on a `GET` or `DELETE` tool. Under `compat` this is \
             a warning and the parameter is not sent, as in the JavaScript reference.",
            "Only `POST` and `PUT` requests carry a body (chapter 02); the specification calls a \
             body parameter on another method a load-time error, so the value is not silently \
             dropped.",
        ),
        VAL083 => (
            "A server-parameter placeholder `{{SERVER_PARAM:KEY}}` whose `KEY` is not listed in \
             `main.requiredServerParams`.",
            "The runtime reads only declared variables from the environment and hides tools whose \
             variables are missing. An undeclared key would be sent literally or as an empty value.",
        ),
        VAL084 => (
            "A parameter with a fixed `position.value` (neither `{{USER_PARAM}}` nor a server \
             parameter) whose value fails the parameter's own `z`, for example `'abc'` with \
             `number()` or a value that is not in its `enum(…)`. A warning under `compat`.",
            "Chapter 02 requires fixed values to pass their validation at load time. A failing \
             value means every call sends something the schema itself declares invalid.",
        ),
        VAL085 => (
            "A `{{…}}` placeholder in `root`, `path`, headers or `position.value` that is none of \
             `{{USER_PARAM}}`, a server parameter, an insert key or a shared-list interpolation. \
             Under `compat` this is a warning, and an undeclared bare `{{X}}` used as \
             `position.value` makes the parameter a user parameter named by `position.key`.",
            "An unknown placeholder reaches the API literally, braces and all. It is almost always a \
             typo or a forgotten declaration.",
        ),
        VAL086 => (
            "`main.schemaVersion`, when present, is not a semantic version (ruling N-20).",
            "`schemaVersion` versions the schema itself, independently of the specification \
             version, so that catalogs can compare revisions; that needs semver.",
        ),
        VAL087 => (
            "`main.schemaHash`, when present, is not 8 lowercase hex digits equal to the recomputed \
             hash: the first 8 hex digits of SHA-256 over the canonical JSON (RFC 8785) of `main` \
             without `schemaHash`. A warning (ruling N-20); the message gives the expected value.",
            "The hash lets catalogs and agents notice that a schema changed. A stale hash means the \
             schema was edited without being re-hashed, so that signal is wrong.",
        ),
        VAL088 => (
            "A schema declares `main.sharedLists`, but no `_lists/` directory is found walking up \
             from its directory, so the checks that need the lists' contents (VAL049, VAL072, VAL073, \
             VAL107, and TST004 for list-interpolated enums) are skipped. Reported once, at \
             `main.sharedLists`, as info.",
            "A schema validated on its own, away from the catalog it belongs to, cannot see its \
             lists. Failing it for what cannot be judged would be wrong, and passing it silently \
             would hide that checks did not run; validating it inside its catalog runs them.",
        ),
        // --- MCP meta block ---------------------------------------------------------------------
        VAL100 => (
            "A tool has no `meta` block (`meta: null` counts as missing). Under `compat` a missing \
             `meta` is not reported (it is checked when present, ruling N-17). A `meta` that is present but not an object is the \
             `not-object` variant, an error in both profiles.",
            "Version 4.2.0 requires `meta` on every tool so that MCP servers can annotate tools \
             (read-only, destructive) and find them through tool search.",
        ),
        VAL101 => (
            "`meta.isReadOnly` is missing or not a boolean.",
            "It becomes the MCP `readOnlyHint` annotation, which clients use to decide whether a \
             call needs the user's confirmation.",
        ),
        VAL102 => (
            "`meta.isConcurrencySafe` is missing or not a boolean.",
            "It tells agents whether the tool may be called several times in parallel.",
        ),
        VAL103 => (
            "`meta.isDestructive` is missing or not a boolean.",
            "It becomes the MCP `destructiveHint` annotation; clients warn before calling a tool \
             that can make irreversible changes.",
        ),
        VAL104 => (
            "`meta.searchHint` is missing, not a string, or empty (whitespace only counts as \
             empty).",
            "The hint holds the keywords tool search matches (`_meta[\"anthropic/searchHint\"]`); a \
             tool that is loaded on demand can only be found through it.",
        ),
        VAL105 => (
            "`meta.aliases` is missing, not an array, or has an entry that is not a string (an \
             empty `[]` is fine).",
            "Aliases let tool search find a tool under other names, such as `getAbi` for \
             `getSmartContractAbi`.",
        ),
        VAL106 => (
            "`meta.alwaysLoad` is missing or not a boolean.",
            "It decides whether the tool is registered eagerly (`_meta[\"anthropic/alwaysLoad\"]`) \
             or loaded on demand; eager tools fill every session's tool list, so the choice must be \
             explicit.",
        ),
        VAL107 => (
            "An enum written out by hand (`enum(ETH,POLYGON,ARBITRUM)`, under `compat` also a \
             `values(…)` option) whose literal values, several distinct ones, all appear among the \
             values of one string field of a list in the registry. The message names the \
             `{{list:field}}` interpolation to use instead. Checked only when the schema sees a list \
             registry.",
            "Shared lists exist so that common value sets are maintained in one place. A copied enum \
             drifts when the list gains or renames entries, and it bypasses the alias mapping that \
             chapter 03 prescribes, whereas an interpolated enum follows the list automatically.",
        ),
        // --- security: static scan --------------------------------------------------------------
        SEC001 => (
            "`import` in any form: a static `import … from`, a dynamic `import(…)`, `import{` and \
             `import.meta`. A property key such as `{ import: 1 }` does not count.",
            "Schemas receive all their dependencies through the `handlers` factory, so they need no \
             imports; an import would load code that neither the allowlist nor the sandbox controls.",
        ),
        SEC002 => (
            "A `require(` call (whitespace and comments before the parenthesis included).",
            "`require` is the CommonJS way to load modules, with the same risk as `import`: code \
             from outside the allowlist.",
        ),
        SEC003 => (
            "An `eval(` call, including `eval (` and `eval?.(`, but not a method such as \
             `x.eval(`.",
            "`eval` runs code assembled from strings, which no static check can see; it is the \
             easiest way around every other rule.",
        ),
        SEC004 => (
            "A call of the `Function(` constructor (`new Function` is SEC005), including tagged \
             templates such as ``Function`…` ``, but not names such as `getFunction(`.",
            "The `Function` constructor compiles code from strings, exactly like `eval`.",
        ),
        SEC005 => (
            "`new Function`, reported once (not also as SEC004).",
            "It compiles code from strings at run time, exactly like `eval`.",
        ),
        SEC006 => (
            "Access to `process` with `.`, `?.` or `[`.",
            "`process` exposes the environment (where API keys live), the working directory and \
             `exit`. Handlers must never see server parameters.",
        ),
        SEC007 => (
            "The identifier `child_process` outside strings and comments. (A module specifier in a \
             string is blanked; the `import` or `require` around it is SEC001/SEC002.)",
            "Spawning processes would give a schema a shell on the machine running it.",
        ),
        SEC008 => (
            "Access to `fs` with `.` or `[`, as in `fs.readFileSync`.",
            "File system access could read credentials or write anywhere the server can.",
        ),
        SEC009 => (
            "`node:fs` written outside strings and comments. (A module specifier in a string is \
             blanked; the `import` or `require` around it is SEC001/SEC002.)",
            "It names Node's file system module, which schemas must never reach.",
        ),
        SEC010 => (
            "`fs/promises` written outside strings and comments. (A module specifier in a string is \
             blanked; the `import` or `require` around it is SEC001/SEC002.)",
            "It names the promise API of Node's file system module, which schemas must never reach.",
        ),
        SEC011 => (
            "Access to `globalThis` with `.`, `?.` or `[`.",
            "The global object reaches built-ins the sandbox removes and lets a module redefine \
             what other code sees.",
        ),
        SEC012 => (
            "Access to `global` with `.`, `?.` or `[` (Node's name for the global object).",
            "The global object reaches built-ins the sandbox removes and lets a module redefine \
             what other code sees.",
        ),
        SEC013 => (
            "The identifier `__dirname`.",
            "It reveals where the server keeps its files, a first step towards file access.",
        ),
        SEC014 => (
            "The identifier `__filename`.",
            "It reveals where the server keeps its files, a first step towards file access.",
        ),
        SEC015 => (
            "The identifier `setTimeout`. Not reported under `compat`.",
            "Timers create asynchronous side effects that outlive a call. Catalogs written for the \
             JavaScript reference use them, so `compat` allows them and the runtime provides a \
             capped timer instead.",
        ),
        SEC016 => (
            "The identifier `setInterval`. Not reported under `compat`.",
            "Intervals keep running after a call ends, an asynchronous side effect. Catalogs written \
             for the JavaScript reference use them, so `compat` allows them and the runtime \
             provides a capped timer instead.",
        ),
        SEC017 => (
            "A value in an export that does not survive a JSON round trip: a function, `undefined`, \
             an array hole, a symbol, a BigInt, NaN or Infinity, a non-plain object such as a `Date` \
             or a `Map`, a cycle, or a getter that throws. Each is reported at its JSON path.",
            "`main` is data: it is hashed, shipped in catalogs and sent to MCP clients as JSON. \
             `JSON.stringify` would silently drop or change such values, so the runtime would work \
             with something other than what the author wrote.",
        ),
        SEC020 => (
            "An entry of `main.requiredLibraries` that is neither on the default allowlist \
             (`ethers`, `moment`, `indicatorts`, `@erc725/erc725.js`, `ccxt`, `axios`) nor in \
             `security.allowedLibraries` of `.flowmcp/config.json`. A warning under `compat`, where \
             the library must still be installed to run.",
            "Libraries run inside handlers with the full power of JavaScript. The allowlist makes \
             the code a schema can pull in explicit, reviewable and closed by default.",
        ),
        SEC200 => (
            "A function definition in a shared-list file (a file under `_lists/`, or one that \
             declares `export const list`): a `function` declaration or expression, or a method \
             such as `name() { … }`.",
            "Shared lists are pure data, frozen and injected into every schema that references \
             them. Code in a list would run for every consumer.",
        ),
        SEC201 => (
            "An arrow function (`=>`) in a shared-list file.",
            "Shared lists are pure data; a function in one would be code shipped to every schema \
             that references the list.",
        ),
        SEC202 => (
            "`async` or `await` in a shared-list file (used as property keys they do not count).",
            "Asynchronous code means computation at load time, and a shared list must be plain \
             data.",
        ),
        SEC203 => (
            "A template literal with a `${…}` expression in a shared-list file; template text \
             without expressions is fine.",
            "An expression computes a value while the file loads, so the list would no longer be \
             exactly what its file says.",
        ),
        SEC204 => (
            "Any of the schema scan patterns of SEC001–SEC016 (`import`, `require(`, `eval(`, \
             `process.`, …) in a shared-list file.",
            "Shared lists get the stricter scan; every pattern forbidden in a schema is at least as \
             dangerous in a file that is injected into many schemas.",
        ),
        // --- preload (CC-01) --------------------------------------------------------------------
        PRE001 => (
            "A tool's `preload` is present but not a plain object.",
            "`preload` declares caching intent through its fields (`enabled`, `ttl`, \
             `description`). Ruling CC-01 moved the preload checks from VAL060–VAL065, which keep \
             their output-schema meaning, to PRE001–PRE006 in the same order.",
        ),
        PRE002 => (
            "`preload.enabled` is missing or not a boolean.",
            "Only `enabled: true` turns caching on; a string such as `'false'` would read as the \
             opposite of what it says.",
        ),
        PRE003 => (
            "`preload.ttl` is missing or not a positive integer (seconds).",
            "The TTL is the maximum age of a cached response; zero, negative or fractional values \
             make no sense for a cache lifetime.",
        ),
        PRE004 => (
            "`preload.description` is present but not a string (a warning).",
            "The description is shown on a cache hit (dataset size, update rhythm). It is \
             informational, so a bad value does not block loading.",
        ),
        PRE005 => (
            "A tool with `preload.enabled: true` and no user parameters (reported as info); fixed \
             and server parameters do not count, since they do not vary between calls.",
            "A response without parameters is one dataset: the ideal cache entry, keyed by namespace \
             and tool alone. The note confirms the choice.",
        ),
        PRE006 => (
            "A tool with `preload.enabled: true` that has required user parameters but no \
             `preload.description`, or a blank one (a warning).",
            "Each distinct set of parameter values becomes its own cache entry, so the cache key must \
             include them and caching only helps when the same inputs repeat. Chapter 11 asks such \
             tools to document that behaviour.",
        ),
        // --- runtime: handlers (chapter 05) and envelope codes (CC-36) --------------------------
        SEC100 => (
            "A handler called `fetch` where no network is allowed: any handler under `spec`, and \
             `preRequest`/`postRequest` under `compat` (there `executeRequest` may fetch, through the \
             runtime's own HTTP client). Reported at call time inside an E005 message.",
            "Handlers run untrusted schema code. All network traffic goes through the runtime, which \
             enforces HTTPS, timeouts, size caps and keeps secrets out of JavaScript (N-15, N-43).",
        ),
        SEC101 => (
            "A handler returned something other than the shape of ruling N-13: `preRequest` → \
             `{ struct, payload }`, `executeRequest` and `postRequest` → `{ response }`. Reported at \
             call time inside an E005 message.",
            "A wrong shape would otherwise become `undefined` data or a broken request; failing with \
             a named rule tells the schema author what to return.",
        ),
        SEC102 => (
            "A handler (or the `handlers` factory) tried to change `sharedLists`, which is deep-frozen: \
             assigning, adding or deleting a property. Reported at call time inside an E005 message.",
            "Shared lists are shared by every schema that references them; one schema changing them \
             would change the behaviour of others.",
        ),
        SEC103 => (
            "A tool with handlers belongs to a schema whose `requiredLibraries` cannot be loaded. \
             Loading npm packages into the sandbox is not supported yet, so the call fails with E005 \
             naming the libraries; tools of the schema without handlers still run.",
            "The handler would fail anyway when it reaches for the library; failing up front names \
             the real cause.",
        ),
        SEC104 => (
            "The `handlers({ sharedLists, libraries })` factory threw, or returned something other \
             than a plain object, when the runtime built it (on the schema's first handler call). \
             Calls of the schema's handler tools fail with E005.",
            "Without a factory result there are no handlers to run; the error says why instead of \
             silently calling the tool without its transformation.",
        ),
        E001 => (
            "The upstream API answered with a non-2xx status: `E001 <tool>: API returned <status>`.",
            "The output-schema chapter defines this message; the status tells the caller whether to \
             retry, fix the input or give up.",
        ),
        E002 => (
            "The request failed on the network: DNS, connection, TLS, protocol, or more redirects \
             than allowed. The message names the URL without its query string.",
            "Callers need to tell a broken upstream from a wrong input; query strings may carry keys, \
             so they never appear in messages.",
        ),
        E003 => (
            "The request did not finish within the connect or total timeout.",
            "A tool call must never hang an agent; the timeout is configurable (`--timeout-ms`).",
        ),
        E004 => (
            "The response body cannot be decoded: invalid JSON for `application/json`, invalid UTF-8 \
             for text, or broken compression. The message never quotes the body.",
            "Handing half-parsed data to an agent is worse than a clear failure.",
        ),
        E005 => (
            "A handler failed: it threw, passed its CPU-time or memory limit, returned a promise that \
             never settles, or broke one of SEC100–SEC104 (named in the message).",
            "Handler code is untrusted; its failures are contained in the sandbox and reported with \
             the phase (`preRequest`, `executeRequest`, `postRequest`) that failed.",
        ),
        E006 => (
            "A server parameter the tool needs has no value in the environment, the env file or the \
             configuration. The message names the variables, never values; such tools are also \
             hidden from `flowmcp list`.",
            "Sending a request with an empty key only produces a confusing upstream error (the \
             reference's behaviour); naming the variable tells the user what to set.",
        ),
        E007 => (
            "The call's inputs do not satisfy the tool's parameters (type, enum, bounds, unknown or \
             missing keys), or the tool does not exist. Checked before any network traffic.",
            "Invalid input never reaches the upstream; every problem is listed at once.",
        ),
        E008 => (
            "The response body is larger than the configured cap.",
            "An unbounded body could exhaust memory; the cap protects the runtime and the agent.",
        ),
        E009 => (
            "The request was refused before it was sent: the URL is not HTTPS (plain http only to \
             loopback hosts with `--upstream`); a redirect leaves HTTPS, or would send a body \
             carrying a secret to another origin; the URL (after a `preRequest` handler, or built \
             from user input) leaves the schema's origin — its `root`, or the `--upstream` that \
             replaces it; a compat `fetch` to another origin carries a server parameter; or a \
             compat `fetch` to another origin names a loopback, private or otherwise non-public \
             address that is not an `--upstream`.",
            "Server parameters must go only where the schema's own request goes, and never in \
             clear text: a handler, a user input or a redirect must not be able to move an API key \
             to another host, and handler code must not reach the user's internal network.",
        ),
        // --- placeholders -----------------------------------------------------------------------
        PH004 => (
            "A prompt placeholder (`{{tool:…}}`, `{{resource:…}}`, `{{prompt:…}}`, `{{skill:…}}`, \
             `{{input:…}}` or `{{prefill:…}}`) in any string inside the schema's `main` block, for \
             example in a description or a parameter value.",
            "Inside `main`, `{{…}}` means request construction (`{{USER_PARAM}}`, server \
             parameters, list interpolation). Prompt placeholders are resolved only when prompt or \
             skill content is rendered, so in `main` they would reach the API verbatim.",
        ),
        // --- tests ------------------------------------------------------------------------------
        TST001 => (
            "A tool has fewer than 3 entries in `tests`. No tests at all (`tests` missing, empty or \
             not an array) is the `none` variant, an error in both profiles; one or two tests are an \
             error under `spec` and a warning under `compat` (rulings CC-06, CC-29, N-01).",
            "Tests are executable documentation and the input for capturing real responses, from \
             which output schemas are derived. Three show breadth: a basic case, an edge case and a \
             cross-cutting one.",
        ),
        TST002 => (
            "A test is not an object, or its `_description` is missing or not a string.",
            "The description says what this particular parameter combination demonstrates, so \
             readers learn the tool's range from the tests alone.",
        ),
        TST003 => (
            "A test leaves out a required user parameter, one whose `z.options` hold neither \
             `optional()` nor `default(…)`. A warning under `compat`.",
            "Such a test cannot run: the runtime rejects the call before sending it.",
        ),
        TST004 => (
            "A test value for a user parameter fails that parameter's `z` (type, enum values, \
             `min`/`max`/`length`). A warning under `compat`.",
            "A test with invalid input fails validation instead of calling the API, so it documents \
             nothing and captures no response.",
        ),
        TST005 => (
            "A test contains a value that does not survive a JSON round trip (a function, \
             `undefined`, a `Date`, NaN, …).",
            "Tests are part of `main`, which is hashed and shipped as JSON; such values would be \
             dropped or changed on the way.",
        ),
        TST006 => (
            "A test key is neither `_description` nor the key of a user parameter. Keys of fixed and \
             server parameters count as unknown, and the message says which they are. A warning \
             under `compat`.",
            "Fixed and server values are supplied by the runtime and never belong in tests (API keys \
             would end up in the schema). Any other unknown key is usually a typo, so the test does \
             not give what it meant to.",
        ),
        TST007 => (
            "In a tool with at least two tests, an enum user parameter with two or more values is \
             covered by only one distinct value across the tests; a test that leaves the parameter out counts as its \
             `default(…)` (a warning).",
            "Tests should show the breadth of a tool. For an enum (chains, networks, intervals) that \
             means several values, which also catches values the API does not actually support.",
        ),
        TST008 => (
            "An optional user parameter that no test gives (reported as info).",
            "A test that sets the optional parameter shows readers what it does, and captures the \
             response shape with it in effect.",
        ),
        // --- shared lists ---------------------------------------------------------------------
        LST001 => (
            "A shared-list file does not have the shape chapter 03 prescribes: it has no named \
             `list` export, `list` is not an object with an object `meta`, `meta.description` is \
             missing or empty, or the file exports something besides `list`.",
            "The runtime reads a list only through its `list` export, and a list file holds exactly \
             one list and nothing else: lists are pure data. The description is what tells people \
             and AI clients what the values mean.",
        ),
        LST002 => (
            "`list.meta.name` is missing, not a string, not camelCase (`evmChains`), or also the name \
             of another list in the same registry; every file that shares the name is reported.",
            "Schemas reference lists by name (`ref: 'evmChains'`) and IDs spell them \
             `shared/list/evmChains`. Two lists with one name would make every reference ambiguous; \
             chapter 03 treats them as a version conflict, not as two lists.",
        ),
        LST003 => (
            "`list.meta.version` is missing or not a semantic version such as `1.0.0`.",
            "Schemas pin the list versions they use, and chapter 03 ties each kind of change to a \
             kind of bump: patch for corrections, minor for additions, major for removals and \
             renames. A version that is not semver cannot be compared with a pin.",
        ),
        LST004 => (
            "`list.meta.fields` is missing, not an array, or empty.",
            "The fields declare the columns of every entry: their keys, types and whether they are \
             required. Entries, interpolations (`{{list:field}}`) and filters are all checked \
             against them, so a list without fields describes nothing.",
        ),
        LST005 => (
            "An entry of `meta.fields` is not an object with a string `key`, a `type` of `string`, \
             `number` or `boolean`, and a `description`; also a key declared twice and an \
             `optional` that is not a boolean.",
            "Lists are flat tables of primitive values by design. A field's type is what entries \
             are checked against (LST008) and its key is what schemas interpolate and filter on, so \
             both must be unambiguous, and the description documents the column.",
        ),
        LST006 => (
            "`list.entries` is missing, not an array, or empty.",
            "The entries are the list's values. Without any, every enum interpolated from the list \
             accepts nothing and every schema that references it receives an empty list.",
        ),
        LST007 => (
            "An entry lacks a field that `meta.fields` declares without `optional: true`, or sets it \
             to `null`; an entry that is not an object is reported here too.",
            "Schemas rely on required fields being present in every entry: an enum built from the \
             field or a handler that maps `alias` to a provider's value would otherwise skip entries \
             silently. Columns that only some entries have are what `optional: true` is for.",
        ),
        LST008 => (
            "A value in an entry does not have the type its field declares (a `chainId` of `'1'` \
             where `number` is declared), is a nested object or array, or belongs to a key that \
             `meta.fields` does not declare.",
            "Filters compare values strictly, so `'1'` and `1` are different values, and handlers \
             rely on the declared types. Chapter 03 keeps entries flat maps of declared fields, \
             which is what makes them safe to interpolate, filter and compare.",
        ),
        LST009 => (
            "An entry of `meta.dependsOn` does not resolve: it is not an object \
             `{ ref, version, condition? }`, its `ref` names no list in the registry, its `version` \
             is not that list's `meta.version`, or its `condition` names a field the parent list \
             does not have or matches none of its entries.",
            "Dependencies build hierarchies such as states within a country. Chapter 03 has the \
             runtime verify them before the list is made available, so an unresolvable dependency \
             fails the load; validation names the entry at fault first.",
        ),
        LST010 => (
            "Following `meta.dependsOn` from a list leads back to the list itself, directly (a list \
             that depends on itself) or through other lists; the message shows the cycle.",
            "Chapter 03 forbids circular dependencies: a cycle has no list that can be resolved \
             first, so none of its lists could be loaded.",
        ),
        LST011 => (
            "A chain of `meta.dependsOn` is deeper than three levels: a list without dependencies \
             is level 1, and a list is one level above its deepest dependency. The message shows the \
             longest chain; lists in a cycle get LST010 instead.",
            "Chapter 03 caps dependencies at three levels to keep resolution simple and the \
             dependency graph shallow, so that the effect of changing a list stays easy to follow.",
        ),
        // --- catalogs -------------------------------------------------------------------------
        CAT001 => (
            "The catalog directory has no `registry.json`, or the file cannot be read, is not valid \
             JSON or not a JSON object, or its `version` (semver) or `description` (a string) is \
             missing or malformed.",
            "`registry.json` is the entry point of a catalog: the runtime and the import commands \
             read the manifest instead of scanning directories. A directory without one is not a \
             catalog, and a manifest without a version and a description cannot be published.",
        ),
        CAT002 => (
            "`name` in `registry.json` is missing, not a string, or not exactly the name of the \
             catalog's directory.",
            "Several catalogs can sit side by side, and the runtime qualifies tool names with the \
             catalog name to keep them apart. A manifest whose name differs from its directory \
             leaves it unclear which catalog is meant.",
        ),
        CAT003 => (
            "`shared` is not an array, or one of its entries is wrong: not an object \
             `{ file, name }`; a `file` that does not exist, is absolute, leaves the catalog, lies \
             outside `_lists/`, is listed twice or is not a shared list; or a `name` that differs \
             from the list's `meta.name`.",
            "Schemas in the catalog get their lists through these entries, and shared lists live \
             only in the catalog's root `_lists/` directory. A broken entry usually means the \
             manifest was not regenerated after files changed; `flowmcp catalog index` rewrites it.",
        ),
        CAT004 => (
            "An entry of `schemas` is wrong: a member is missing or has the wrong type; its `file` \
             does not exist, is absolute, uses `\\` or leaves the catalog, is listed twice, or is \
             not a schema; or the entry disagrees with the file (`namespace` and `main.namespace`, \
             `requiredServerParams`, `hasHandlers`, `sharedLists`). A schema in the reserved \
             namespace `shared`, and a second schema defining an ID that another already defines, \
             are reported here too.",
            "The runtime loads schemas through these entries, and tools trust the derived members \
             (which API keys are needed, whether handlers run) without opening the files. A stale \
             entry misinforms them, and a duplicate ID would make `namespace/tool/name` ambiguous.",
        ),
        CAT005 => (
            "An entry of `agents` is wrong: a member is missing or has the wrong type; its \
             `manifest` does not exist, is not the `agent.mjs` in the agent's own directory \
             (`agents/<name>/agent.mjs`), leaves the catalog, or does not export `agent`; or the \
             agent is named `shared`. Entries of `selections` are checked here the same way (ruling \
             N-41).",
            "Agents are activated from their manifest, so one that cannot be found cannot be \
             imported. Chapter 15 makes the agent's name its directory name, so that the layout \
             alone tells where an agent lives.",
        ),
        CAT006 => (
            "A `.mjs` file in the catalog that no entry of `registry.json` lists; a warning. Files \
             that belong to a listed entry (such as the `prompts/` of a listed provider or agent), \
             `_shared/` helper modules and hidden directories are not counted.",
            "A file nobody lists is invisible to the runtime: often a schema someone forgot to \
             register, or a leftover from development. The catalog still works, hence a warning; \
             `flowmcp catalog index` lists the file, or it can be removed.",
        ),
        CAT007 => (
            "`schemaSpec` is missing or is not a released FlowMCP specification version: tags such as \
             `latest`, ranges such as `2.x` and versions that do not exist yet are rejected. The \
             message lists the known versions.",
            "The runtime chooses validation rules and loading behaviour by this version, so it must \
             name one concrete edition of the specification. A moving target would change what the \
             catalog means without anyone editing it.",
        ),
        CAT008 => (
            "`contentHash` in `registry.json` is present but is not `sha256:` followed by 64 \
             lowercase hex digits, or differs from the hash recomputed from the files the manifest \
             references (chapter 15's algorithm: the files sorted by path, `path:content` for each, \
             SHA-256). A manifest without `contentHash` is not checked.",
            "The hash lets importers and the runtime notice that a referenced file changed since the \
             manifest was written, which means the catalog needs validating again. Chapter 15 \
             defines the hash but no code for a mismatch; this project extension makes the \
             integrity check actually happen.",
        ),
        // --- IDs ------------------------------------------------------------------------------
        ID001 => (
            "An ID whose number of `/`-separated segments is wrong, where nothing says what was \
             meant: no `/` at all (`simplePrice`), more than three segments, or three segments \
             where only a Schema-File-ID is accepted. It is then the only finding for the ID.",
            "Chapter 16 tells the two forms apart by their slashes alone: two make a Primitive-ID \
             (`namespace/type/name`), one a Schema-File-ID (`namespace/schema-name`). With any other \
             count the segments cannot be assigned to their roles, so nothing else can be checked.",
        ),
        ID002 => (
            "The namespace, the first segment, does not match `^[a-z][a-z0-9-]*$`: it has uppercase \
             letters, underscores or dots, or starts with a digit (`COINGECKO`, `coin_gecko`, \
             `1inch`).",
            "The namespace names the owner of a primitive and reappears in directory names and in \
             MCP tool names (`getAbi_etherscan-io`), where an underscore would make the name \
             ambiguous. One portable spelling keeps IDs, paths and tool names in step.",
        ),
        ID003 => (
            "The type, the middle segment of a Primitive-ID, is not one of `tool`, `resource`, \
             `prompt`, `list`, `skill`, `selection` and `agent` (compared case-sensitively, so \
             `Tool` is wrong too), or the namespace is the reserved `shared` and the type is not \
             `list`.",
            "The type says what kind of primitive the ID points at, and resolution looks in the \
             matching place (`main.tools`, a list's `meta.name`, `agents/<name>/agent.mjs`, …). The \
             namespace `shared` is reserved for shared lists, so `shared/list/<name>` is its only \
             valid shape.",
        ),
        ID004 => (
            "The name, the last segment, is empty (`coingecko/tool/`, `coingecko/`) or does not \
             match the chapter's pattern: `^[a-zA-Z][a-zA-Z0-9-]*$` for a primitive, lowercase \
             kebab-case for a schema name. The camelCase or kebab-case convention of each primitive \
             type is checked where the primitive is defined, not here.",
            "The name identifies one item within its namespace and type, so an empty name \
             identifies nothing. Keeping names to letters, digits and hyphens lets them appear \
             unchanged in file names, on command lines and in MCP tool names, where the namespace is \
             attached after an underscore (`simplePrice_coingecko`).",
        ),
        ID005 => (
            "A short-form ID: a primitive written `namespace/name` with the type left out \
             (`moralis/getTokenBalance`). Reported where a Primitive-ID is expected, and by \
             `flowmcp validate --id` when the second segment looks like a primitive name (it has an \
             uppercase letter, which a kebab-case schema name never has); otherwise two segments are \
             read as a Schema-File-ID.",
            "Without its type, `namespace/name` could be a tool, a resource or a prompt of that \
             name, and it looks like a Schema-File-ID. Chapter 16 drops the short form in v4: the \
             full ID shows at a glance what is meant and where the data comes from.",
        ),
        ID006 => (
            "An ID that leaves out the namespace and relies on its context to supply it: `type/name`, \
             such as `tool/simplePrice` or `skill/quick-summary`, wherever a Primitive-ID is \
             accepted. The message shows the full form to write.",
            "An ID must mean the same wherever it appears: in a selection, an agent, a registry or \
             on the command line. One completed from its context changes meaning when it is copied \
             elsewhere, so chapter 16 requires the full form everywhere.",
        ),
        // --- loader (project extensions) --------------------------------------------------------
        LDR001 => (
            "The file is not valid UTF-8 (the first bad byte is reported with its line, column and \
             offset), or it cannot be read at all (permissions, a directory named like a file).",
            "Schemas are JavaScript source, which is text. Guessing an encoding would shift every \
             position and could hide patterns from the static scan.",
        ),
        LDR002 => (
            "The file is larger than the configured cap (`--max-file-size`, 4 MiB by default); it \
             is not read any further.",
            "Real schemas are a few kilobytes. The cap bounds memory and scan time for hostile or \
             accidental inputs such as a bundled dependency or a data dump.",
        ),
        LDR003 => (
            "The file does not parse as a JavaScript module; the message carries the parser's \
             error and its position.",
            "A file that does not parse cannot be loaded by any runtime. Reporting it as a finding \
             keeps the rest of a catalog run going.",
        ),
        LDR004 => (
            "Evaluating the module threw: a `ReferenceError`, a `throw` at the top level, a failing \
             computation. The position is given when known.",
            "A module that throws exports nothing usable; the message shows what went wrong where.",
        ),
        LDR005 => (
            "Evaluating the module, extracting its exports and calling the `handlers` factory did \
             not finish within the time limit (1000 ms by default, `--timeout-ms`).",
            "Schemas are declarative and evaluate in well under a millisecond. An endless loop must \
             not hang validation or a server start.",
        ),
        LDR006 => (
            "Evaluation exceeded the sandbox's memory limit (64 MiB by default, `--memory-mib`) or \
             its JavaScript stack limit, for example through runaway allocation or unbounded \
             recursion.",
            "Limits keep one hostile or broken file from exhausting the machine; a runtime that hit \
             a limit is discarded.",
        ),
        LDR007 => (
            "A top-level `await` whose promise never settles, so the module never finishes \
             evaluating.",
            "Such a module has no exports yet when there is nothing left to run; reporting it \
             promptly beats waiting for the time limit.",
        ),
        LDR008 => (
            "The file is empty, or exports none of `main`, `list`, `skill`, `prompt`, `agent`, \
             `selection` and `content` (for example only a default export).",
            "The exports decide what kind of FlowMCP file this is; a file with none of them is not \
             one (often a helper module, or `export default` by mistake).",
        ),
        _ => return None,
    };
    Some(pair)
}

/// The scan note for the static-scan codes (SEC001–SEC016), `None` for the others.
pub fn scan_note(code: Code) -> Option<&'static str> {
    let text = code.as_str();
    let n: u32 = text.strip_prefix("SEC")?.parse().ok()?;
    (1..=16).contains(&n).then_some(SCAN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flowmcp_spec::{RULES, Status};

    #[test]
    fn every_implemented_code_has_prose() {
        let missing: Vec<&str> = RULES
            .iter()
            .filter(|r| r.status == Status::Implemented && rationale(r.code).is_none())
            .map(|r| r.code.as_str())
            .collect();
        assert!(
            missing.is_empty(),
            "implemented codes without text in xtask/src/rationale.rs: {missing:?}"
        );
    }

    #[test]
    fn prose_is_tidy() {
        for r in RULES {
            if let Some((what, why)) = rationale(r.code) {
                for text in [what, why] {
                    assert!(!text.contains("  "), "{}: double space in {text:?}", r.code);
                    assert!(
                        text.ends_with('.') || text.ends_with(".)"),
                        "{}: {text:?} ends without a period",
                        r.code
                    );
                    assert_eq!(
                        text.matches('`').count() % 2,
                        0,
                        "{}: unbalanced backticks in {text:?}",
                        r.code
                    );
                }
            }
        }
    }
}
