//! Every rule, one function each, registered once in its family module's `RULES` table
//! (see [`rule_tables`]).
//!
//! A rule reads the loaded exports through [`SchemaCtx`] and reports through a [`Collector`], which
//! applies the profile's severity (or drops the diagnostic when the rule is off). Rules never panic
//! and never assume a field has the right type: each checks what it needs and stays quiet about what
//! another rule reports.

mod agents;
mod context;
mod handlers;
mod lists;
mod main_fields;
mod meta;
mod output;
mod params;
mod preload;
pub(crate) mod prompts;
mod queries;
mod resources;
mod security;
pub(crate) mod selections;
mod skills;
mod tool_tests;
mod tools;

use flowmcp_spec::diagnostic::Collector;

use context::run;
pub(crate) use context::{
    Field, ParamRef, ParamSource, SchemaCtx, SchemaRule, check_string_array, each_parameter,
    each_tool, main_path, required_server_params, required_string, shown, type_name, user_params,
};
pub(crate) use context::{Ran, Reads, Trace};

/// The rules of each family module, in the order they run. Each module declares its own `RULES`
/// table, so adding a rule touches only its module.
pub(crate) fn rule_tables() -> [&'static [SchemaRule]; 12] {
    [
        main_fields::RULES,
        handlers::RULES,
        security::RULES,
        tools::RULES,
        params::RULES,
        output::RULES,
        preload::RULES,
        resources::RULES,
        meta::RULES,
        lists::RULES,
        tool_tests::RULES,
        prompts::RULES,
    ]
}

/// Every registered schema rule.
pub(crate) fn schema_rules() -> impl Iterator<Item = &'static SchemaRule> {
    rule_tables().into_iter().flatten()
}

/// Runs every schema rule.
pub(crate) fn run_schema_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>, trace: Trace<'_>) {
    context::run_with(schema_rules(), ctx, c, trace);
}

/// The rules of a skill file (`export const skill`), in the order they run.
pub(crate) fn skill_rules() -> impl Iterator<Item = &'static SchemaRule> {
    skills::RULES.iter()
}

/// Runs every skill-file rule.
pub(crate) fn run_skill_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    run(skill_rules(), ctx, c);
}

/// The rules of a prompt file (`export const prompt`), a content file (`export const content`)
/// and a selection file, in the order they run.
#[cfg(test)]
pub(crate) fn prompt_file_rules() -> impl Iterator<Item = &'static SchemaRule> {
    prompts::FILE_RULES
        .iter()
        .chain(prompts::CONTENT_RULES)
        .chain(selections::RULES)
        .chain(agents::RULES)
}

/// Runs the rules of a prompt file.
pub(crate) fn run_prompt_file_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    run(prompts::FILE_RULES, ctx, c);
}

/// Runs the rules of an agent manifest.
pub(crate) fn run_agent_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    run(agents::RULES, ctx, c);
}

/// Runs the rules of a selection file.
pub(crate) fn run_selection_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    run(selections::RULES, ctx, c);
}

/// Runs the rules of a content file.
pub(crate) fn run_content_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    run(prompts::CONTENT_RULES, ctx, c);
}

#[cfg(test)]
mod registry_tests {
    use flowmcp_spec::registry::Status;

    use super::{prompt_file_rules, schema_rules, skill_rules};

    /// SEL004 runs the skill rules on each inline skill, so it declares their codes: a rule is
    /// passed over when all its codes are off, and the skill findings must not go with it.
    #[test]
    fn sel004_declares_every_code_of_the_skill_rules() {
        let sel004 = super::selections::RULES
            .iter()
            .find(|r| r.codes.first() == Some(&flowmcp_spec::Code::SEL004))
            .map(|r| r.codes)
            .unwrap_or_default();
        for code in skill_rules().flat_map(|r| r.codes) {
            assert!(
                sel004.contains(code),
                "SEL004's rule does not declare {code}"
            );
        }
    }

    #[test]
    fn every_code_a_rule_emits_is_implemented_in_the_registry() {
        for rule in schema_rules()
            .chain(skill_rules())
            .chain(prompt_file_rules())
        {
            for code in rule.codes {
                assert_eq!(code.info().status, Status::Implemented, "{code}");
            }
        }
    }
}
