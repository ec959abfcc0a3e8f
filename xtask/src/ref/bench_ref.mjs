// Driver for `cargo xtask bench reference` (flowmcp-rs's own code, not part of the reference).
// The xtask writes this file into a scratch directory whose `node_modules` links to the reference
// checkout's, and runs it as
//   node bench_ref.mjs <validate|load|serve> <flowmcp-core checkout> <schema dir>
// validate: every .mjs file scanned, imported and checked by the core's MainValidator.
// load:     every file through the core's Pipeline.load, then one server tool (name, description,
//           zod shape) prepared per route, as a server would.
// serve:    the loaded tools registered on the official TypeScript SDK's McpServer, served over
//           stdio (the xtask times process start to the first tools/list answer).
// validate and load print one summary line on stderr. A schema whose handler libraries are not
// installed in the checkout is loaded with none (counted in the summary).
import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const [ mode, corePath, dir ] = process.argv.slice( 2 )
const core = await import( pathToFileURL( join( resolve( corePath ), 'src', 'index.mjs' ) ).href )
const { SecurityScanner, SchemaLoader, MainValidator, Pipeline, FlowMCP } = core

function schemaFiles( root ) {
    const found = []
    const walk = ( d ) => {
        for( const e of readdirSync( d, { withFileTypes: true } ) ) {
            const p = join( d, e.name )
            if( e.isDirectory() ) { walk( p ) }
            else if( e.isFile() && e.name.endsWith( '.mjs' ) ) { found.push( p ) }
        }
    }
    walk( resolve( root ) )
    return found.sort()
}

async function validate( files ) {
    let valid = 0
    let invalid = 0
    for( const filePath of files ) {
        try {
            const scan = await SecurityScanner.scan( { filePath } )
            if( !scan.status ) { invalid += 1; continue }
            const { main } = await SchemaLoader.load( { filePath } )
            const { status } = MainValidator.validate( { main } )
            if( status ) { valid += 1 } else { invalid += 1 }
        } catch { invalid += 1 }
    }
    process.stderr.write( `reference validate: ${files.length} files, ${valid} valid, ${invalid} invalid\n` )
}

async function load( files ) {
    const tools = []
    let failed = 0
    let stubbed = 0
    for( const filePath of files ) {
        let loaded
        try {
            loaded = await Pipeline.load( { filePath } )
        } catch( err ) {
            // A handler library that is not installed in the checkout: load the schema with no
            // libraries (its handlers are not called here), as a server listing tools would.
            if( !/not resolvable|allowlist/.test( String( err?.message ) ) ) { failed += 1; continue }
            stubbed += 1
            try { loaded = await Pipeline.load( { filePath, libraries: {} } ) } catch { failed += 1; continue }
        }
        if( !loaded.status || !loaded.main ) { failed += 1; continue }
        const { main, handlerMap } = loaded
        for( const routeName of Object.keys( main.tools || {} ) ) {
            try {
                tools.push( FlowMCP.prepareServerTool( { main, handlerMap, serverParams: {}, routeName } ) )
            } catch { failed += 1 }
        }
    }
    return { tools, failed, stubbed }
}

const files = schemaFiles( dir )
if( mode === 'validate' ) {
    await validate( files )
} else if( mode === 'load' ) {
    const { tools, failed, stubbed } = await load( files )
    process.stderr.write( `reference load: ${files.length} files, ${tools.length} tools, ${failed} files or tools failed, ${stubbed} files loaded without their handler libraries\n` )
} else if( mode === 'serve' ) {
    const { McpServer } = await import( '@modelcontextprotocol/sdk/server/mcp.js' )
    const { StdioServerTransport } = await import( '@modelcontextprotocol/sdk/server/stdio.js' )
    const server = new McpServer( { name: 'flowmcp-core-reference', version: '1.0.0' } )
    const { tools } = await load( files )
    const seen = new Set()
    for( const { toolName, description, zod, func } of tools ) {
        if( seen.has( toolName ) ) { continue }
        seen.add( toolName )
        server.tool( toolName, description || '', zod, async ( args ) => {
            const { dataAsString } = await func( args )
            return { content: [ { type: 'text', text: String( dataAsString ) } ] }
        } )
    }
    await server.connect( new StdioServerTransport() )
} else {
    process.stderr.write( 'usage: node bench_ref.mjs <validate|load|serve> <flowmcp-core> <dir>\n' )
    process.exit( 2 )
}
