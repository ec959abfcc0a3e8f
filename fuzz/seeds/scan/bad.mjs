#!/usr/bin/env node
import fs from 'node:fs'
const x = require( 'child_process' )
eval/**/( "1" ); new Function( 'return 1' )
process?.env; globalThis[ 'a' ]; global.b; __dirname; setTimeout( () => {}, 1 )
const t = `a${ `b${ fs.readFileSync( __filename ) }` }c`
\u0065val( 2 )
