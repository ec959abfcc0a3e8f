export const content = `Prompt with arguments: arg1='{{input:arg1}}', arg2='{{input:arg2}}'. {{tool:echoArguments:description}}`
