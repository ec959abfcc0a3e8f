export const main = {
    namespace: 'openshelf-org',
    name: 'OpenShelfBooks',
    description: 'Search a library catalog, read book and author details, and create reading lists with the (fictional) OpenShelf books API.',
    version: '4.2.0',
    schemaVersion: '1.0.0',
    root: 'https://api.openshelf.org/v1',
    docs: [ 'https://developers.openshelf.org/api', 'https://developers.openshelf.org/api/search' ],
    tags: [ 'books', 'library', 'literature' ],
    termsOfService: 'https://openshelf.org/terms',
    requiredServerParams: [ 'OPENSHELF_API_KEY' ],
    headers: {
        'Accept': 'application/json',
        'X-Client': 'flowmcp-example-catalog'
    },
    sharedLists: [
        { ref: 'languages', version: '1.0.0', filter: { key: 'code', in: [ 'de', 'en', 'es', 'fr', 'it' ] } }
    ],
    tools: {
        searchBooks: {
            method: 'POST',
            path: '/search',
            description: 'Full-text search over titles, authors and subjects, with filters for language, subjects, publication year and availability.',
            headers: {
                'Content-Type': 'application/json'
            },
            parameters: [
                {
                    position: { key: 'apiKey', value: '{{SERVER_PARAM:OPENSHELF_API_KEY}}', location: 'query' },
                    z: { primitive: 'string()', options: [] }
                },
                {
                    position: { key: 'searchMode', value: 'fulltext', location: 'body' },
                    z: { primitive: 'enum(fulltext,title)', options: [] }
                },
                {
                    position: { key: 'query', value: '{{USER_PARAM}}', location: 'body' },
                    z: { primitive: 'string()', options: [ 'min(1)', 'max(200)' ] },
                    description: 'Search words'
                },
                {
                    position: { key: 'subjects', value: '{{USER_PARAM}}', location: 'body' },
                    z: { primitive: 'array()', options: [ 'optional()' ] },
                    description: 'Subject keywords that every result must have'
                },
                {
                    position: { key: 'language', value: '{{USER_PARAM}}', location: 'body' },
                    z: { primitive: 'enum({{languages:code}})', options: [ 'optional()' ] },
                    description: 'Language of the edition'
                },
                {
                    position: { key: 'publishedAfter', value: '{{USER_PARAM}}', location: 'body' },
                    z: { primitive: 'number()', options: [ 'min(1450)', 'max(2100)', 'optional()' ] },
                    description: 'Only editions first published after this year'
                },
                {
                    position: { key: 'limit', value: '{{USER_PARAM}}', location: 'body' },
                    z: { primitive: 'number()', options: [ 'min(1)', 'max(50)', 'default(10)' ] },
                    description: 'Maximum number of results'
                },
                {
                    position: { key: 'availableOnly', value: '{{USER_PARAM}}', location: 'body' },
                    z: { primitive: 'boolean()', options: [ 'default(false)' ] },
                    description: 'Only return books with at least one copy available to borrow'
                }
            ],
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'object',
                    properties: {
                        total: { type: 'number', description: 'Total number of matches' },
                        results: {
                            type: 'array',
                            description: 'Matching books, best match first',
                            items: {
                                type: 'object',
                                properties: {
                                    isbn: { type: 'string', description: 'ISBN-13 of the edition' },
                                    title: { type: 'string', description: 'Book title' },
                                    primaryAuthor: { type: 'string', description: 'Name of the first author' },
                                    year: { type: 'number', description: 'Year of first publication', nullable: true },
                                    available: { type: 'boolean', description: 'At least one copy can be borrowed' }
                                }
                            }
                        }
                    }
                }
            },
            tests: [
                { _description: 'Simple keyword search with default limit', query: 'pride and prejudice' },
                { _description: 'German-language books on a subject, available copies only', query: 'Kafka', language: 'de', subjects: [ 'fiction' ], availableOnly: true },
                { _description: 'Recent English science books, five results', query: 'climate', language: 'en', subjects: [ 'science', 'environment' ], publishedAfter: 2015, limit: 5 }
            ],
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'search books title author subject library catalog',
                aliases: [ 'findBooks', 'bookSearch' ],
                alwaysLoad: false
            }
        },
        getBook: {
            method: 'GET',
            path: '/books/{{isbn}}',
            description: 'Returns the details of one edition by ISBN-10 or ISBN-13: authors, publisher, subjects and availability.',
            parameters: [
                {
                    position: { key: 'apiKey', value: '{{SERVER_PARAM:OPENSHELF_API_KEY}}', location: 'query' },
                    z: { primitive: 'string()', options: [] }
                },
                {
                    position: { key: 'isbn', value: '{{USER_PARAM}}', location: 'insert' },
                    z: { primitive: 'string()', options: [ 'min(10)', 'max(13)' ] },
                    description: 'ISBN-10 or ISBN-13 without hyphens'
                }
            ],
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'object',
                    properties: {
                        isbn: { type: 'string', description: 'ISBN-13 of the edition' },
                        title: { type: 'string', description: 'Book title' },
                        subtitle: { type: 'string', description: 'Subtitle', nullable: true },
                        authors: {
                            type: 'array',
                            description: 'Authors in credit order',
                            items: {
                                type: 'object',
                                properties: {
                                    id: { type: 'string', description: 'Author identifier for getAuthorWorks' },
                                    name: { type: 'string', description: 'Author name' }
                                }
                            }
                        },
                        publisher: { type: 'string', description: 'Publisher name', nullable: true },
                        publishedYear: { type: 'number', description: 'Year of this edition', nullable: true },
                        pageCount: { type: 'number', description: 'Number of pages', nullable: true },
                        subjects: {
                            type: 'array',
                            description: 'Subject keywords',
                            items: { type: 'string', description: 'Subject keyword' }
                        },
                        availability: {
                            type: 'object',
                            description: 'Lending status',
                            properties: {
                                status: { type: 'string', description: 'Lending status', enum: [ 'available', 'on-loan', 'reference-only' ] },
                                copies: { type: 'number', description: 'Number of copies held' }
                            }
                        }
                    }
                }
            },
            tests: [
                { _description: 'Classic novel by ISBN-13', isbn: '9780141439518' },
                { _description: 'Fantasy paperback by ISBN-10', isbn: '0261103571' },
                { _description: 'German-language edition by ISBN-13', isbn: '9783596294312' }
            ],
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'book details isbn edition publisher availability',
                aliases: [ 'getBookByIsbn', 'lookupIsbn' ],
                alwaysLoad: false
            }
        },
        getAuthorWorks: {
            method: 'GET',
            path: '/authors/{{authorId}}/works',
            description: 'Lists the works of an author, sorted by popularity or publication date.',
            parameters: [
                {
                    position: { key: 'apiKey', value: '{{SERVER_PARAM:OPENSHELF_API_KEY}}', location: 'query' },
                    z: { primitive: 'string()', options: [] }
                },
                {
                    position: { key: 'authorId', value: '{{USER_PARAM}}', location: 'insert' },
                    z: { primitive: 'string()', options: [ 'min(3)', 'max(40)' ] },
                    description: 'Author identifier as returned by getBook'
                },
                {
                    position: { key: 'sort', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'enum(popular,newest,oldest)', options: [ 'default(popular)' ] },
                    description: 'Sort order'
                },
                {
                    position: { key: 'limit', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'number()', options: [ 'min(1)', 'max(50)', 'default(10)' ] },
                    description: 'Maximum number of works'
                }
            ],
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'object',
                    properties: {
                        author: { type: 'string', description: 'Author name' },
                        works: {
                            type: 'array',
                            description: 'Works of the author',
                            items: {
                                type: 'object',
                                properties: {
                                    workId: { type: 'string', description: 'Work identifier' },
                                    title: { type: 'string', description: 'Original title' },
                                    firstPublished: { type: 'number', description: 'Year of first publication', nullable: true },
                                    editionCount: { type: 'number', description: 'Number of known editions' }
                                }
                            }
                        }
                    }
                }
            },
            tests: [
                { _description: 'Most popular works of a 19th-century novelist', authorId: 'auth-austen-j' },
                { _description: 'Newest works of a contemporary author, three results', authorId: 'auth-atwood-m', sort: 'newest', limit: 3 },
                { _description: 'Earliest works of a prolific author, up to 50', authorId: 'auth-dickens-c', sort: 'oldest', limit: 50 }
            ],
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'author bibliography works novels list',
                aliases: [ 'authorBibliography' ],
                alwaysLoad: false
            }
        },
        createReadingList: {
            method: 'POST',
            path: '/lists',
            description: 'Creates a new reading list from a set of ISBNs and returns its identifier and share link.',
            headers: {
                'Content-Type': 'application/json'
            },
            parameters: [
                {
                    position: { key: 'apiKey', value: '{{SERVER_PARAM:OPENSHELF_API_KEY}}', location: 'query' },
                    z: { primitive: 'string()', options: [] }
                },
                {
                    position: { key: 'title', value: '{{USER_PARAM}}', location: 'body' },
                    z: { primitive: 'string()', options: [ 'min(1)', 'max(120)' ] },
                    description: 'Title of the reading list'
                },
                {
                    position: { key: 'isbns', value: '{{USER_PARAM}}', location: 'body' },
                    z: { primitive: 'array()', options: [] },
                    description: 'ISBNs to put on the list'
                },
                {
                    position: { key: 'visibility', value: '{{USER_PARAM}}', location: 'body' },
                    z: { primitive: 'enum(private,unlisted,public)', options: [ 'default(private)' ] },
                    description: 'Who can see the list'
                }
            ],
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'object',
                    properties: {
                        listId: { type: 'string', description: 'Identifier of the new list' },
                        title: { type: 'string', description: 'Title as stored' },
                        itemCount: { type: 'number', description: 'Number of books accepted onto the list' },
                        shareUrl: { type: 'string', format: 'uri', description: 'Link to the list', nullable: true }
                    }
                }
            },
            tests: [
                { _description: 'Private list with two classic novels', title: 'Classics to read', isbns: [ '9780141439518', '9780141439600' ] },
                { _description: 'Public list with a single fantasy title', title: 'Fantasy starter', isbns: [ '0261103571' ], visibility: 'public' },
                { _description: 'Unlisted list for sharing by link', title: 'Book club autumn', isbns: [ '9783596294312', '9780141439518' ], visibility: 'unlisted' }
            ],
            meta: {
                isReadOnly: false,
                isConcurrencySafe: false,
                isDestructive: false,
                searchHint: 'create reading list save books collection',
                aliases: [ 'newReadingList' ],
                alwaysLoad: false
            }
        }
    }
}
