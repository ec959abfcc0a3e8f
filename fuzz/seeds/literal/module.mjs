export const main = {
    namespace: 'n', tools: { t: { method: 'GET', path: '/x' } }
}
export const handlers = () => ( {} )
