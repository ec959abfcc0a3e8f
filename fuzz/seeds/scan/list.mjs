export const list = {
    meta: { name: 'evmChains', version: '1.0.0' },
    entries: [ { alias: 'ETHEREUM_MAINNET', chainId: 1 }, { alias: "POLYGON", chainId: 137 } ]
}
