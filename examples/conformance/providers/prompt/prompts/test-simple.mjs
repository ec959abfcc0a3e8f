export const content = `This is a simple prompt for testing. {{tool:fixedText:description}}`
