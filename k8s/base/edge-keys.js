// The edge's request target for the API's routes: one per meaning, for the cache key and for the
// request sent upstream alike, so the API computes exactly what is keyed
// (docs/OPERATIONS.md#one-key-per-answer). edge.conf.template imports it (js_set $edge_uri).
//
// The target is the API's own canonical query, what GET /api/v1/query/{route} answers
// (Query.canonical(), readiness/domain/query.py): the query string read as the API reads it
// (read_query_string and Grammar.values: `_` names dropped, and on the legacy route the names it
// ignores; a list's repeated values joined, the last value of any other name kept; ASCII
// whitespace trimmed; empty values dropped), each value then read as Query.parse reads it
// (aliases and any case to the canonical spelling, defaults dropped, codes upper-cased,
// deduplicated and sorted, fields in their order, weights reduced, what the route ignores
// dropped), written in the canonical order and encoding. What the API would refuse (an unknown
// name, a bad value, bytes that are not UTF-8), any other route and any other method pass as
// they came: their raw target is the key, and the API refuses it as it would have.
// The vocabulary (routes, names, spellings, defaults, patterns) is generated from the domain
// between BEGIN ROUTES and END ROUTES (make edge-routes, readiness/edge_vocabulary.py); the
// rules after it mirror the parser's. tests/test_edge_keys.py checks the target against the
// running API's canonical query.
//
// njs 0.7.9 (Debian bookworm) and later: ES5 with a few ES6 forms. It runs on hits too, on
// every target the template's map does not take as it came (edge.conf.template: most hits
// are already canonical). njs 0.7 spends a microsecond or so on a regular expression, half one
// on a split, a join or an object, and clones the VM for every request, copying every global
// object and string of more than a few characters: a usual request runs one expression (PLAIN;
// else the printable test too) and one per code list, number or value kept as it is, the rest
// string functions and switches, and the module's globals are functions, numbers and PLAIN.
// Every value it writes is encoded already: the vocabulary's as the canonical query writes it,
// and what the patterns admit needs no escape (make edge-routes checks both).

// BEGIN ROUTES: generated from the route table (readiness/domain/routes.py) by `make edge-routes`.
// Edit the table, not these lines: tests/test_edge_routes.py fails when they differ from it.
// Code and string constants, not tables: njs 0.7 clones the VM for every request, and a global
// object graph such as {route: {name: true}} was copied with it, 5 microseconds a request
// (docs/PERFORMANCE.md#what-njs-costs-a-hit); so was a global string of more than a few characters,
// or a regular expression (a literal made when asked costs a quarter of a microsecond instead).

// The route the edge keys `path` as (a trailing slash taken off): a data route's name in the route
// table (its own path, or /api/v1/query/{route} explaining it), `citation` or `document`;
// undefined for any other path.
function routeOf(path) {
    switch (path) {
    case '/api/v1/readiness':
    case '/api/v1/query/readiness':
        return 'v1';
    case '/api/readiness':
        return 'legacy';
    case '/api/v1/indicators':
    case '/api/v1/query/indicators':
        return 'indicators';
    case '/api/v1/history':
    case '/api/v1/query/history':
        return 'history';
    case '/api/v1/aggregates':
    case '/api/v1/query/aggregates':
        return 'aggregates';
    case '/api/v1/rankings/changes':
    case '/api/v1/query/rankings/changes':
        return 'rankings-changes';
    case '/api/v1/snapshots':
        return 'snapshots';
    case '/api/v1/readiness.csv':
        return 'v1.csv';
    case '/api/v1/indicators.csv':
        return 'indicators.csv';
    case '/api/v1/history.csv':
        return 'history.csv';
    case '/api/v1/aggregates.csv':
        return 'aggregates.csv';
    case '/api/v1/rankings/changes.csv':
        return 'rankings-changes.csv';
    case '/api/v1/citation':
        return 'citation';
    case '/api/v1/openapi.json':
    case '/api/v1':
        return 'document';
    }
    // /api/v1/snapshots/{id}/changes
    if (path.length > 26 && path.substring(0, 18) === '/api/v1/snapshots/'
            && path.substring(path.length - 8) === '/changes'
            && path.substring(18, path.length - 8).indexOf('/') < 0) {
        return 'changes';
    }
    // /api/v1/snapshots/{id}/datapackage.json
    if (path.length > 35 && path.substring(0, 18) === '/api/v1/snapshots/'
            && path.substring(path.length - 17) === '/datapackage.json'
            && path.substring(18, path.length - 17).indexOf('/') < 0) {
        return 'datapackage';
    }
    // /api/v1/snapshots/{id}/package.zip
    if (path.length > 30 && path.substring(0, 18) === '/api/v1/snapshots/'
            && path.substring(path.length - 12) === '/package.zip'
            && path.substring(18, path.length - 12).indexOf('/') < 0) {
        return 'package';
    }
    // /api/v1/snapshots/{id}/readiness.csv
    if (path.length > 32 && path.substring(0, 18) === '/api/v1/snapshots/'
            && path.substring(path.length - 14) === '/readiness.csv'
            && path.substring(18, path.length - 14).indexOf('/') < 0) {
        return 'readiness-csv';
    }
    // /api/v1/snapshots/{id}/readiness.parquet
    if (path.length > 36 && path.substring(0, 18) === '/api/v1/snapshots/'
            && path.substring(path.length - 18) === '/readiness.parquet'
            && path.substring(18, path.length - 18).indexOf('/') < 0) {
        return 'readiness-parquet';
    }
    // /api/v1/snapshots/{id}/indicators.csv
    if (path.length > 33 && path.substring(0, 18) === '/api/v1/snapshots/'
            && path.substring(path.length - 15) === '/indicators.csv'
            && path.substring(18, path.length - 15).indexOf('/') < 0) {
        return 'indicators-csv';
    }
    // /api/v1/snapshots/{id}/indicators.parquet
    if (path.length > 37 && path.substring(0, 18) === '/api/v1/snapshots/'
            && path.substring(path.length - 19) === '/indicators.parquet'
            && path.substring(18, path.length - 19).indexOf('/') < 0) {
        return 'indicators-parquet';
    }
    // /api/v1/snapshots/{id}/changes.csv
    if (path.length > 30 && path.substring(0, 18) === '/api/v1/snapshots/'
            && path.substring(path.length - 12) === '/changes.csv'
            && path.substring(18, path.length - 12).indexOf('/') < 0) {
        return 'changes.csv';
    }
    return undefined;
}

// The names `route` takes (its grammar), in the order its canonical query writes them (Query.canonical():
// CANONICAL_ORDER, then the route's own), those it never writes last (`code`, `level`); one string,
// a space around each name.
function namesOf(route) {
    switch (route) {
    case 'snapshots':
    case 'datapackage':
    case 'package':
    case 'readiness-csv':
    case 'readiness-parquet':
    case 'indicators-csv':
    case 'indicators-parquet':
    case 'changes.csv':
    case 'document':
        return ' ';
    case 'v1':
        return ' codes region income fcv year snapshot sort order fields shortnames indicators limit offset\
 weights format code level country per_page page ';
    case 'legacy':
        return ' codes region income fcv year sort order fields shortnames indicators limit format code\
 level ';
    case 'indicators':
        return ' codes region income fcv year years mrv snapshot fields indicators limit offset shape format\
 code country per_page page date time ';
    case 'history':
        return ' codes region income fcv years mrv snapshot fields limit offset shape format code country\
 per_page page date time ';
    case 'aggregates':
        return ' region income fcv year years mrv snapshot limit offset by format per_page page date time ';
    case 'rankings-changes':
        return ' codes region income fcv limit offset format from to measure code country per_page page ';
    case 'changes':
        return ' format ';
    case 'v1.csv':
        return ' codes region income fcv year snapshot sort order fields shortnames indicators limit offset\
 weights code level country per_page page ';
    case 'indicators.csv':
        return ' codes region income fcv year years mrv snapshot fields indicators limit offset shape code\
 country per_page page date time ';
    case 'history.csv':
        return ' codes region income fcv years mrv snapshot fields limit offset shape code country per_page\
 page date time ';
    case 'aggregates.csv':
        return ' region income fcv year years mrv snapshot limit offset by per_page page date time ';
    case 'rankings-changes.csv':
        return ' codes region income fcv limit offset from to measure code country per_page page ';
    case 'citation':
        return ' format snapshot ';
    }
    return undefined;
}

// Every route refuses a name it does not take (a 400), except those whose grammar is
// lenient: they ignore it.
function strict(route) {
    return route !== 'legacy';
}

// The list parameters of `route`: repeated, their values are joined with commas.
function isList(route, name) {
    return name === 'codes' || name === 'fields' || name === 'indicators' || (route === 'history' && name === 'snapshot') || (route === 'history.csv' && name === 'snapshot');
}

// Whether `name` filters only in country mode on `route` (checked wherever given, written only there).
function countryModeOnly(route, name) {
    return (route === 'legacy' && name === 'indicators') || (route === 'v1' && name === 'indicators') || (route === 'v1.csv' && name === 'indicators');
}

// Whether `values` (read or readPlain) holds any alias of any route: a few property reads, so
// that a query without one costs no loop over its names.
function anyAlias(values) {
    return values['country'] !== undefined || values['date'] !== undefined || values['page'] !== undefined || values['per_page'] !== undefined || values['time'] !== undefined;
}
// The aliases `route` takes, in the order they resolve, a space around each ('' for none).
function aliasesOf(route) {
    switch (route) {
    case 'v1':
    case 'rankings-changes':
    case 'v1.csv':
    case 'rankings-changes.csv':
        return ' country per_page page ';
    case 'indicators':
    case 'history':
    case 'indicators.csv':
    case 'history.csv':
        return ' country per_page page date time ';
    case 'aggregates':
    case 'aggregates.csv':
        return ' per_page page date time ';
    }
    return undefined;
}

// The names the alias `name` stands for, a space around each: given beside one of them, or beside
// another alias of one, it is refused.
function claims(name) {
    switch (name) {
    case 'country':
        return ' codes code ';
    case 'per_page':
        return ' limit ';
    case 'page':
        return ' offset ';
    case 'date':
        return ' years ';
    case 'time':
        return ' years mrv ';
    }
    return undefined;
}
var DEFAULT_PER_PAGE = 50;  // the rows of a page `page` reads without `per_page` or `limit`
// What an open end of a `time` range stands for (functions: njs copies global strings with the VM).
function earliest() {
    return '0000';
}
function latest() {
    return '9999';
}

// The canonical value (encoded) of the spelling `key` (ASCII lower-cased) of the closed set `name` on
// `route`: '' for its default, which the canonical query leaves out, null for no spelling of it;
// undefined when `name` is not a closed set there.
function choice(route, name, key) {
    switch (name) {
    case 'by':
        switch (key) {
        case 'world':
            return '';
        case 'region':
            return 'region';
        case 'income':
            return 'income';
        case 'fcv':
            return 'fcv';
        }
        return null;
    case 'fcv':
        switch (key) {
        case 'true':
        case '1':
            return 'true';
        case 'false':
        case '0':
            return 'false';
        }
        return null;
    case 'format':
        if (route === 'citation') {
            switch (key) {
            case 'bibtex':
                return '';
            case 'ris':
                return 'ris';
            case 'csl':
                return 'csl';
            case 'text':
                return 'text';
            }
            return null;
        }
        switch (key) {
        case 'json':
            return '';
        case 'csv':
            return 'csv';
        }
        return null;
    case 'income':
        switch (key) {
        case 'low income':
        case 'lic':
            return 'Low%20income';
        case 'lower middle income':
        case 'lmc':
            return 'Lower%20middle%20income';
        case 'upper middle income':
        case 'umc':
            return 'Upper%20middle%20income';
        case 'high income':
        case 'hic':
            return 'High%20income';
        }
        return null;
    case 'level':
        switch (key) {
        case 'global':
        case 'country':
            return '';
        }
        return null;
    case 'measure':
        switch (key) {
        case 'score':
            return '';
        case 'rank':
            return 'rank';
        }
        return null;
    case 'region':
        switch (key) {
        case 'east asia & pacific':
        case 'eap':
            return 'East%20Asia%20%26%20Pacific';
        case 'europe & central asia':
        case 'eca':
            return 'Europe%20%26%20Central%20Asia';
        case 'latin america & caribbean':
        case 'lac':
        case 'sa':
        case 'south america':
            return 'Latin%20America%20%26%20Caribbean';
        case 'middle east & north africa':
        case 'mena':
            return 'Middle%20East%20%26%20North%20Africa';
        case 'north america':
        case 'na':
            return 'North%20America';
        case 'south asia':
        case 'sas':
            return 'South%20Asia';
        case 'sub-saharan africa':
        case 'ssa':
            return 'Sub-Saharan%20Africa';
        }
        return null;
    case 'shape':
        switch (key) {
        case 'wide':
            return '';
        case 'long':
            return 'long';
        }
        return null;
    case 'shortnames':
        switch (key) {
        case 'true':
        case '1':
            return 'true';
        case 'false':
        case '0':
            return '';
        }
        return null;
    }
    return undefined;
}
// Whether the spelling `key` of `name` is taken only with codes (country mode).
function needsCodes(name, key) {
    return (name === 'level' && key === 'country');
}

// The declared pattern of `name` on `route`: a value that matches is written as it is (the
// patterns match nothing the canonical encoding escapes: make edge-routes checks it).
function kept(route, name) {
    switch (name) {
    case 'from':
    case 'to':
        return /^(?:[0-9]{4}-(?:0[1-9]|1[0-2]))?$/;
    case 'mrv':
        return /^(?:[1-9][0-9]{0,2})?$/;
    case 'snapshot':
        if (route === 'history' || route === 'history.csv') {
            return /^[0-9]{4}-(?:0[1-9]|1[0-2])$/;
        }
        return /^(?:[0-9]{4}-(?:0[1-9]|1[0-2]))?$/;
    case 'year':
        return /^(?:[0-9]{4})?$/;
    }
    return undefined;
}

// The field (encoded) the spelling `key` (ASCII lower-cased) of `sort` sorts by on `route`; undefined
// for none.
function sortField(route, key) {
    if (route === 'legacy') {
        switch (key) {
        case 'country name':
            return 'Country%20Name';
        case 'country code':
            return 'Country%20Code';
        case 'region':
            return 'Region';
        case 'income level':
            return 'Income%20Level';
        case 'population, total':
            return 'Population,%20total';
        case 'composite readiness score':
        case 'score':
            return 'Composite%20Readiness%20Score';
        case 'infrastructure score':
        case 'infra':
            return 'Infrastructure%20Score';
        case 'human capital score':
        case 'human':
            return 'Human%20Capital%20Score';
        case 'school access and gender parity score':
        case 'access':
            return 'School%20Access%20and%20Gender%20Parity%20Score';
        case 'innovation score':
        case 'innovation':
            return 'Innovation%20Score';
        case 'governance score':
        case 'governance':
            return 'Governance%20Score';
        case 'fcv status':
            return 'FCV%20Status';
        case 'fcv type':
            return 'FCV%20Type';
        case 'global rank':
            return 'Global%20Rank';
        case 'regional rank':
            return 'Regional%20Rank';
        case 'microstate':
            return 'Microstate';
        case 'last updated':
            return 'Last%20Updated';
        }
        return undefined;
    }
    switch (key) {
    case 'country name':
        return 'Country%20Name';
    case 'country code':
        return 'Country%20Code';
    case 'region':
        return 'Region';
    case 'income level':
        return 'Income%20Level';
    case 'population, total':
        return 'Population,%20total';
    case 'composite readiness score':
    case 'score':
        return 'Composite%20Readiness%20Score';
    case 'infrastructure score':
    case 'infra':
        return 'Infrastructure%20Score';
    case 'human capital score':
    case 'human':
        return 'Human%20Capital%20Score';
    case 'school access and gender parity score':
    case 'access':
        return 'School%20Access%20and%20Gender%20Parity%20Score';
    case 'innovation score':
    case 'innovation':
        return 'Innovation%20Score';
    case 'governance score':
    case 'governance':
        return 'Governance%20Score';
    case 'fcv status':
        return 'FCV%20Status';
    case 'fcv type':
        return 'FCV%20Type';
    case 'global rank':
        return 'Global%20Rank';
    case 'regional rank':
        return 'Regional%20Rank';
    case 'microstate':
        return 'Microstate';
    case 'last updated':
        return 'Last%20Updated';
    case 'custom score':
    case 'custom':
        return 'Custom%20Score';
    case 'custom rank':
        return 'Custom%20Rank';
    }
    return undefined;
}
// The field a query without `sort` sorts by (a function: njs copies a global string of more than
// a few characters with the VM for every request).
function defaultSort() {
    return 'Country%20Name';
}
// The order the spelling `key` (ASCII lower-cased) of `order` writes; undefined for none.
function orderOf(key) {
    switch (key) {
    case 'asc':
        return 'asc';
    case 'desc':
        return 'desc';
    }
    return undefined;
}
var ASCENDING = 'asc';  // the default sort's own: with it, neither is written
var DESCENDING = 'desc';  // a sort's without `order`, when it descends
// Whether a sort by `field` descends when no order is given (numbers, ranks, the custom values).
function descends(field) {
    switch (field) {
    case 'Composite%20Readiness%20Score':
    case 'Custom%20Rank':
    case 'Custom%20Score':
    case 'Global%20Rank':
    case 'Governance%20Score':
    case 'Human%20Capital%20Score':
    case 'Infrastructure%20Score':
    case 'Innovation%20Score':
    case 'Population,%20total':
    case 'Regional%20Rank':
    case 'School%20Access%20and%20Gender%20Parity%20Score':
        return true;
    }
    return false;
}
// The weights a sort by `field` writes when none are given (the custom values: the published
// weights); undefined for another field.
function impliedWeights(field) {
    switch (field) {
    case 'Custom%20Rank':
    case 'Custom%20Score':
        return '1,1,1,1,1';
    }
    return undefined;
}

// The field (encoded) one spelling `key` (ASCII lower-cased) of `fields` names; undefined for none.
function field(key) {
    switch (key) {
    case 'country name':
        return 'Country%20Name';
    case 'country code':
        return 'Country%20Code';
    case 'region':
        return 'Region';
    case 'income level':
        return 'Income%20Level';
    case 'population, total':
        return 'Population,%20total';
    case 'composite readiness score':
    case 'score':
        return 'Composite%20Readiness%20Score';
    case 'infrastructure score':
    case 'infra':
        return 'Infrastructure%20Score';
    case 'human capital score':
    case 'human':
        return 'Human%20Capital%20Score';
    case 'school access and gender parity score':
    case 'access':
        return 'School%20Access%20and%20Gender%20Parity%20Score';
    case 'innovation score':
    case 'innovation':
        return 'Innovation%20Score';
    case 'governance score':
    case 'governance':
        return 'Governance%20Score';
    case 'fcv status':
        return 'FCV%20Status';
    case 'fcv type':
        return 'FCV%20Type';
    case 'global rank':
        return 'Global%20Rank';
    case 'regional rank':
        return 'Regional%20Rank';
    case 'microstate':
        return 'Microstate';
    case 'last updated':
        return 'Last%20Updated';
    case 'indicator_details':
        return 'indicator_details';
    case 'indicator_name':
        return 'indicator_name';
    case 'component':
        return 'component';
    case 'year':
        return 'year';
    case 'reported_value':
        return 'reported_value';
    case 'data_source':
        return 'data_source';
    case 'normalized_value':
        return 'normalized_value';
    case 'global_percentile':
        return 'global_percentile';
    case 'regional_percentile':
        return 'regional_percentile';
    case 'notes':
        return 'notes';
    case 'global_percentile_value':
        return 'global_percentile_value';
    case 'regional_percentile_value':
        return 'regional_percentile_value';
    case 'observed_year':
        return 'observed_year';
    }
    return undefined;
}
// The fields `fields` may name on `route`, in the order the canonical query lists them, `|` around each.
function fieldsOf(route) {
    switch (route) {
    case 'v1':
    case 'legacy':
    case 'v1.csv':
        return '|Country%20Name|Country%20Code|Region|Income%20Level|Population,%20total\
|Composite%20Readiness%20Score|Infrastructure%20Score|Human%20Capital%20Score\
|School%20Access%20and%20Gender%20Parity%20Score|Innovation%20Score|Governance%20Score|FCV%20Status\
|FCV%20Type|Global%20Rank|Regional%20Rank|Microstate|Last%20Updated|indicator_details|';
    case 'indicators':
    case 'indicators.csv':
        return '|Country%20Name|Region|Income%20Level|indicator_name|component|year|reported_value\
|data_source|normalized_value|global_percentile|regional_percentile|notes|global_percentile_value\
|regional_percentile_value|observed_year|';
    case 'history':
    case 'history.csv':
        return '|Country%20Name|Country%20Code|Region|Income%20Level|Composite%20Readiness%20Score\
|Infrastructure%20Score|Human%20Capital%20Score|School%20Access%20and%20Gender%20Parity%20Score\
|Innovation%20Score|Governance%20Score|FCV%20Status|Global%20Rank|Regional%20Rank|';
    }
    return undefined;
}

// The field written only alone (a function, as defaultSort).
function details() {
    return 'indicator_details';
}
var MOST_PIECES = 2;

// The parser's pattern (readiness/domain/parameters.py) of a list of codes, of indicators, of `years`,
// `limit`, `offset` and one weight, anchored.
function pattern(name) {
    switch (name) {
    case 'codes':
        return /^(?:[A-Za-z]{3})(?:,(?:[A-Za-z]{3}))*$/;
    case 'indicators':
        return /^(?:[A-Za-z0-9._]{1,40})(?:,(?:[A-Za-z0-9._]{1,40}))*$/;
    case 'years':
        return /^(?:[0-9]{4}(:[0-9]{4})?)$/;
    case 'limit':
        return /^(?:[0-9]{1,4})$/;
    case 'offset':
        return /^(?:[0-9]{1,7})$/;
    case 'weight':
        return /^(?:[0-9]{1,4}(\.[0-9]{1,4})?)$/;
    }
    return undefined;
}
var MAX_CODES = 300;
var MAX_INDICATORS = 100;
var MAX_LIMIT = 1000;
var MAX_SNAPSHOTS = 100;
var WEIGHT_SCALE = 10000;
var DIMENSIONS = 5;
// The position of the dimension `weights=name:weight` calls `key` (ASCII lower-cased); -1 for none.
function dimension(key) {
    switch (key) {
    case 'infrastructure':
    case 'infrastructure score':
    case 'infra':
        return 0;
    case 'human':
    case 'human capital':
    case 'human capital score':
        return 1;
    case 'access':
    case 'school access and gender parity':
    case 'school access and gender parity score':
        return 2;
    case 'innovation':
    case 'innovation score':
        return 3;
    case 'governance':
    case 'governance score':
        return 4;
    }
    return -1;
}
// END ROUTES

// Whether a route's `names` (namesOf) hold `name`.
function takes(names, name) {
    return name.indexOf(' ') < 0 && names.indexOf(' ' + name + ' ') >= 0;
}

var SPACES = ' \t\n\r\x0b\x0c';

// A name or value as the API reads it: `+` a space, %XX a byte, the bytes UTF-8. null when
// they are not UTF-8 (the API reads U+FFFD there), and for a `%` not followed by two hex digits
// (Python's unquote keeps it a `%`): no name the API takes and no value it accepts holds a `%`,
// so both are refused, or ignored (a `_` name, a name the legacy route ignores), as the API
// would.
function decoded(text) {
    if (text.indexOf('+') >= 0) {
        text = text.split('+').join('%20');
    }
    if (text.indexOf('%') < 0) {
        return text;
    }
    try {
        return decodeURIComponent(text);
    } catch (e) {
        return null;
    }
}

// Without ASCII whitespace around it, as the API trims (String.prototype.trim would also take
// Unicode spaces).
function trimmed(text) {
    if (text === '' || (text.charCodeAt(0) > 32 && text.charCodeAt(text.length - 1) > 32)) {
        return text;
    }
    var start = 0;
    var end = text.length;
    while (start < end && SPACES.indexOf(text.charAt(start)) >= 0) {
        start++;
    }
    while (end > start && SPACES.indexOf(text.charAt(end - 1)) >= 0) {
        end--;
    }
    return start === 0 && end === text.length ? text : text.slice(start, end);
}

// `text` as the parser compares a spelling (`folded`): ASCII letters lower-cased, and a text with
// any other character left as it is, which no spelling matches (toLowerCase would make the Kelvin
// sign a `k`). Its UTF-8 length tells ASCII apart, for a tenth of a loop over its characters.
function folded(text) {
    return Buffer.byteLength(text) === text.length ? text.toLowerCase() : text;
}

// The query string `args` of `route`, which takes `names` (namesOf), read as the API reads it
// (read_query_string, Grammar.values): each name to its value, decoded and trimmed, empty ones
// left out; null for a value decoded refuses. null when the API refuses a name.
function read(route, names, args) {
    if (!/^[\x21-\x7e]*$/.test(args)) {  // printable ASCII: what it came as is what the API reads
        return null;
    }
    var values = {};
    var pairs = args.split('&');
    for (var i = 0; i < pairs.length; i++) {
        var pair = pairs[i];
        if (pair === '') {
            continue;
        }
        var at = pair.indexOf('=');
        var name = at < 0 ? pair : pair.slice(0, at);
        if (!takes(names, name)) {  // else a name the route takes, as the API spells it
            var raw = name;
            name = decoded(raw);
            if (name === null) {  // a name the route takes from nobody, unless it is a `_` one
                if (raw.charAt(0) === '_' || raw.substring(0, 3).toLowerCase() === '%5f') {
                    continue;
                }
            } else if (name.charAt(0) === '_') {
                continue;
            }
            if (name === null || !takes(names, name)) {
                if (strict(route)) {
                    return null;
                }
                continue;
            }
        }
        // A list's values are joined, in order; otherwise the last value wins. One decoded
        // refuses is decided on once it is read, if it is.
        var given = at < 0 ? '' : decoded(pair.slice(at + 1));
        if (isList(route, name) && values[name] !== undefined) {
            given = values[name] === null || given === null ? null : values[name] + ',' + given;
        }
        values[name] = given;
    }
    for (var key in values) {  // trimmed, and an empty value absent
        var text = values[key] === null ? null : trimmed(values[key]);
        if (text === '') {
            delete values[key];
        } else if (text !== values[key]) {
            values[key] = text;
        }
    }
    return values;
}

// Pairs of a name and a plain value (letters, digits, `-.,:`, `%20` and `%26` inside, as in
// "Europe & Central Asia"): what `read` would make of them takes only splitting and those two
// escapes decoded (no `+`, no other escape, nothing to trim, no empty value).
var PLAIN = /^[a-z]+=[-.,:0-9A-Za-z]+(?:(?:%2[06])+[-.,:0-9A-Za-z]+)*(?:&[a-z]+=[-.,:0-9A-Za-z]+(?:(?:%2[06])+[-.,:0-9A-Za-z]+)*)*$/;

// `args` read as `read` reads it when it is plain pairs (PLAIN) of names in `names`, each given
// once: the usual query, for a microsecond less than `read` spends on it; undefined otherwise.
function readPlain(names, args) {
    if (!PLAIN.test(args)) {
        return undefined;
    }
    var values = {};
    var pairs = args.split('&');
    for (var i = 0; i < pairs.length; i++) {
        var at = pairs[i].indexOf('=');
        var name = pairs[i].slice(0, at);  // letters (PLAIN): `takes` without its check for spaces
        if (names.indexOf(' ' + name + ' ') < 0 || values[name] !== undefined) {
            return undefined;
        }
        var value = pairs[i].slice(at + 1);
        values[name] = value.indexOf('%') < 0 ? value : decodeURIComponent(value);
    }
    return values;
}

// A list of codes as _code_list reads it: pieces trimmed, empty ones dropped, each matching the
// parser's pattern (`pattern`: the list's), upper-cased, deduplicated and sorted, at most `most`
// distinct; null otherwise (none, one that does not match, too many). Written as they are: the
// patterns hold letters, digits, `.` and `_` (make edge-routes checks it).
function codeList(value, pattern, most) {
    if (value.indexOf(',') < 0) {  // one code (a value is trimmed): most lists
        return pattern.test(value) ? value.toUpperCase() : null;
    }
    var pieces = value.split(',');
    var given = [];
    for (var i = 0; i < pieces.length; i++) {
        var piece = trimmed(pieces[i]);
        if (piece !== '') {
            given.push(piece);
        }
    }
    if (given.length === 0 || !pattern.test(given.join(','))) {
        return null;
    }
    given = given.join(',').toUpperCase().split(',');
    given.sort();
    var codes = [];
    for (var j = 0; j < given.length; j++) {
        if (j === 0 || given[j] !== given[j - 1]) {
            codes.push(given[j]);
        }
    }
    return codes.length > most ? null : codes.join(',');
}

// `fields` as field_list and _fields read it on `route`: comma-separated pieces, trimmed, a
// field's name spanning up to MOST_PIECES of them (`Population, total`), each a spelling of a
// field the route has; written once each, in their order, indicator_details only alone.
// null when a piece names no such field or none is named.
function fieldList(route, value) {
    var order = fieldsOf(route);
    if (value.indexOf(',') < 0) {  // one field (a value is trimmed): most lists
        var one = field(folded(value));
        return one !== undefined && order.indexOf('|' + one + '|') >= 0 ? one : null;
    }
    var pieces = value.split(',');
    for (var i = 0; i < pieces.length; i++) {
        pieces[i] = trimmed(pieces[i]);
    }
    var named = false;
    var chosen = [];
    var start = 0;
    while (start < pieces.length) {
        if (pieces[start] === '') {
            start++;
            continue;
        }
        var found;
        var width = Math.min(MOST_PIECES, pieces.length - start);
        for (; width > 0; width--) {
            found = field(folded(pieces.slice(start, start + width).join(', ')));
            if (found !== undefined) {
                break;
            }
        }
        if (found === undefined || order.indexOf('|' + found + '|') < 0) {
            return null;
        }
        named = true;
        if (found !== details() && chosen.indexOf(found) < 0) {
            chosen.push(found);
        }
        start += width;
    }
    if (!named) {
        return null;
    }
    chosen.sort(function (a, b) {
        return order.indexOf('|' + a + '|') - order.indexOf('|' + b + '|');
    });
    return chosen.length > 0 ? chosen.join(',') : details();
}

// `years` as _years reads it: a year, or a range, its earlier year first (`2025:2023` is
// `2023:2025`); one year when both ends are one. The pattern holds four digits each, written as
// they are.
function yearRange(value) {
    if (!pattern('years').test(value)) {
        return null;
    }
    var colon = value.indexOf(':');
    var first = colon < 0 ? value : value.slice(0, colon);
    var last = colon < 0 ? value : value.slice(colon + 1);
    if (parseInt(first, 10) > parseInt(last, 10)) {
        var later = first;
        first = last;
        last = later;
    }
    return first === last ? first : first + ':' + last;
}

// A list of values kept as they are (history's `snapshot`) as _code_list reads it: pieces trimmed,
// empty ones dropped, each matching `pattern` (kept: the item's), deduplicated and sorted, at most
// `most` distinct; null otherwise. The pattern admits nothing upper-casing changes.
function keptList(value, pattern, most) {
    var pieces = value.split(',');
    var given = [];
    for (var i = 0; i < pieces.length; i++) {
        var piece = trimmed(pieces[i]);
        if (piece !== '') {
            if (!pattern.test(piece)) {
                return null;
            }
            given.push(piece);
        }
    }
    given.sort();
    var kept = [];
    for (var j = 0; j < given.length; j++) {
        if (j === 0 || given[j] !== given[j - 1]) {
            kept.push(given[j]);
        }
    }
    return kept.length === 0 || kept.length > most ? null : kept.join(',');
}

// `limit` as _limit reads it: 1 to MAX_LIMIT, leading zeros dropped.
function limitOf(value) {
    var rows = pattern('limit').test(value) ? parseInt(value, 10) : 0;
    return rows >= 1 && rows <= MAX_LIMIT ? String(rows) : null;
}

// `offset` as _offset reads it, 0 (the default) left out.
function offsetOf(value) {
    if (!pattern('offset').test(value)) {
        return null;
    }
    var rows = parseInt(value, 10);
    return rows === 0 ? '' : String(rows);
}

// One weight as _weight reads it: whole WEIGHT_SCALE-ths; null when it is no weight.
function weightOf(piece) {
    if (!pattern('weight').test(piece)) {
        return null;
    }
    var dot = piece.indexOf('.');
    if (dot < 0) {
        return parseInt(piece, 10) * WEIGHT_SCALE;
    }
    var places = String(WEIGHT_SCALE).length - 1;  // the decimals a weight may have, padded to as many
    var decimals = (piece.slice(dot + 1) + String(WEIGHT_SCALE).slice(1)).slice(0, places);
    return parseInt(piece.slice(0, dot), 10) * WEIGHT_SCALE + parseInt(decimals, 10);
}

// `weights` as _weights reads it: DIMENSIONS weights in order, or `dimension:weight` pairs (a
// dimension not named weighs 0, none named twice), divided by their greatest common divisor, so
// that `1,2,3,4,5` and `2,4,6,8,10` are one; null when they are not weights, or all 0.
function weightsOf(value) {
    var pieces = value.split(',');
    var scaled = [];
    var i;
    for (i = 0; i < DIMENSIONS; i++) {
        scaled.push(0);
    }
    if (value.indexOf(':') < 0) {
        if (pieces.length !== DIMENSIONS) {
            return null;
        }
        for (i = 0; i < DIMENSIONS; i++) {
            scaled[i] = weightOf(trimmed(pieces[i]));
            if (scaled[i] === null) {
                return null;
            }
        }
    } else {
        var named = {};
        for (i = 0; i < pieces.length; i++) {
            var piece = trimmed(pieces[i]);
            var colon = piece.indexOf(':');
            var position = colon < 0 ? -1 : dimension(folded(trimmed(piece.slice(0, colon))));
            if (position < 0 || named[position]) {
                return null;
            }
            named[position] = true;
            scaled[position] = weightOf(trimmed(piece.slice(colon + 1)));
            if (scaled[position] === null) {
                return null;
            }
        }
    }
    var divisor = 0;
    for (i = 0; i < DIMENSIONS; i++) {
        var a = divisor;
        var b = scaled[i];
        while (b !== 0) {
            var rest = a % b;
            a = b;
            b = rest;
        }
        divisor = a;
    }
    if (divisor === 0) {
        return null;
    }
    for (i = 0; i < DIMENSIONS; i++) {
        scaled[i] = scaled[i] / divisor;
    }
    return scaled.join(',');
}

// What the canonical query writes for `name`'s `value` on `route` (Query.parse's reading of it),
// `country` when codes are given; '' when it writes nothing (a default, a name it ignores); null
// when the API refuses it. Not `code`, `codes`, `sort` or `order`: canonical's.
function written(route, name, value, country) {
    switch (name) {
    case 'indicators':
        var indicators = codeList(value, pattern('indicators'), MAX_INDICATORS);
        // Checked wherever given; where it filters only in country mode, written only there.
        return indicators !== null && !country && countryModeOnly(route, name) ? '' : indicators;
    case 'fields':
        return fieldList(route, value);
    case 'years':
        return yearRange(value);
    case 'limit':
        return limitOf(value);
    case 'offset':
        return offsetOf(value);
    case 'weights':
        return weightsOf(value);
    }
    if (isList(route, name)) {  // a list of values kept as they are: history's `snapshot`
        return keptList(value, kept(route, name), MAX_SNAPSHOTS);
    }
    var key = folded(value);
    var text = choice(route, name, key);
    if (text !== undefined) {
        // A code selects country mode whatever `level` says; `level=country` without one is refused.
        return text !== null && !country && needsCodes(name, key) ? null : text;
    }
    return kept(route, name).test(value) ? value : null;
}

// Writes into `values` (the canonical names' values so far) what the alias `alias` given `value`
// stands for, as its resolver in readiness/domain/aliases.py does; false when the API refuses the
// value. What it writes is then read as if given (and refused there if it must be).
function resolve(alias, value, values) {
    switch (alias) {
    case 'per_page':
        values.limit = value;
        return true;
    case 'date':
        values.years = value;
        return true;
    case 'page':  // the offset of page `value` (from 1) of `limit` rows, DEFAULT_PER_PAGE without one
        if (!/^[0-9]{1,7}$/.test(value) || parseInt(value, 10) < 1) {
            return false;
        }
        if (values.limit === undefined) {
            values.limit = String(DEFAULT_PER_PAGE);
        }
        if (values.limit !== null && pattern('limit').test(values.limit)) {
            values.offset = String((parseInt(value, 10) - 1) * parseInt(values.limit, 10));
        }
        return true;
    case 'time':  // a year, a range A..B or A:B (open ends: earliest, latest, empty), or latest: mrv=1
        var text = folded(value);
        if (text === 'latest') {
            values.mrv = '1';
            return true;
        }
        if (/^[0-9]{4}$/.test(text)) {
            values.years = text;
            return true;
        }
        var range = /^([0-9]{4}|earliest|)(?:\.\.|:)([0-9]{4}|latest|)$/.exec(text);
        if (range === null) {
            return false;
        }
        values.years = (range[1] === '' || range[1] === 'earliest' ? earliest() : range[1]) + ':'
            + (range[2] === '' || range[2] === 'latest' ? latest() : range[2]);
        return true;
    case 'country':  // ISO3 codes joined with ~ (Our World in Data), ; (World Bank) or ,
        var pieces = value.split(/[~;,]/);
        var codes = [];
        for (var i = 0; i < pieces.length; i++) {
            var piece = trimmed(pieces[i]);
            if (piece !== '') {
                codes.push(piece);
            }
        }
        if (codes.length === 0) {
            return false;
        }
        values.codes = codes.join(',');
        return true;
    }
    return false;
}

// `values` (read or readPlain) with the aliases of `route` (aliasesOf, in their order) replaced by
// what they stand for (resolve), as Query.parse's _unaliased does; `values` itself when none is
// given; null when the API refuses them: an alias beside a name it stands for (claims), or beside
// another alias of one, or a value its resolver refuses.
function unaliased(route, values) {
    if (values === null || !anyAlias(values)) {  // most queries: no loop over their names
        return values;
    }
    var aliases = aliasesOf(route);
    if (aliases === undefined) {  // a lenient route's reader dropped them; a strict one's refused them
        return values;
    }
    var canonical = {};
    for (var name in values) {
        if (!takes(aliases, name)) {
            canonical[name] = values[name];
        }
    }
    var claimed = ' ';
    var order = aliases.split(' ');
    for (var i = 0; i < order.length; i++) {
        var alias = order[i];
        if (alias === '' || values[alias] === undefined) {
            continue;
        }
        var targets = claims(alias).split(' ');
        for (var j = 0; j < targets.length; j++) {
            if (targets[j] !== '' && (values[targets[j]] !== undefined || claimed.indexOf(' ' + targets[j] + ' ') >= 0)) {
                return null;
            }
        }
        claimed += claims(alias).slice(1);
        if (values[alias] === null || !resolve(alias, values[alias], canonical)) {
            return null;
        }
    }
    return canonical;
}

// Adds `name=text` to `pairs`, kept in the order of `names` (namesOf, where `ranks` are their
// places): by insertion, cheaper than a sort with a comparator for the few pairs of a query.
function put(names, pairs, ranks, name, text) {
    var rank = names.indexOf(' ' + name + ' ');
    var at = pairs.length;
    while (at > 0 && ranks[at - 1] > rank) {
        pairs[at] = pairs[at - 1];
        ranks[at] = ranks[at - 1];
        at--;
    }
    pairs[at] = name + '=' + text;
    ranks[at] = rank;
}

// The canonical query (Query.canonical()) of `values` (read or readPlain) on `route`, which
// takes `names` (namesOf, in canonical order); null when the API refuses it.
function canonical(route, names, values) {
    if (values === null) {
        return null;
    }
    // One of `year`, `snapshot` and `years` (with `mrv`) chooses the snapshots (_chosen): `year`, else
    // `snapshot`, else `years` and `mrv`; the others are checked, then dropped.
    var chooser = values.year !== undefined ? 'year' : (values.snapshot !== undefined ? 'snapshot' : 'years');
    var pairs = [];
    var ranks = [];
    // `codes` wins over `code`, which is then not read at all; alone, `code` is `codes`.
    var codes = values.codes !== undefined ? values.codes : values.code;
    if (codes !== undefined) {
        codes = codes === null ? null : codeList(codes, pattern('codes'), MAX_CODES);
        if (codes === null) {
            return null;
        }
        put(names, pairs, ranks, 'codes', codes);
    }
    for (var name in values) {
        if (name === 'code' || name === 'codes' || name === 'sort' || name === 'order') {
            continue;
        }
        var value = values[name];
        var text = value === null ? null : written(route, name, value, codes !== undefined);
        if (text === null) {
            return null;
        }
        var choosing = name === 'year' || name === 'snapshot' || name === 'years' || name === 'mrv';
        if (text !== '' && (!choosing || name === chooser || (name === 'mrv' && chooser === 'years'))) {
            put(names, pairs, ranks, name, text);
        }
    }
    if (values.sort === undefined && values.order === undefined) {
        return pairs.join('&');
    }
    // The sort and its order: written together once either differs from the default; without
    // an order, numbers descend.
    var sort = values.sort === undefined ? defaultSort()
        : (values.sort === null ? undefined : sortField(route, folded(values.sort)));
    if (sort === undefined) {
        return null;
    }
    var implied = values.weights === undefined ? impliedWeights(sort) : undefined;
    if (implied !== undefined) {  // a custom sort without weights: by the published ones
        put(names, pairs, ranks, 'weights', implied);
    }
    var order = values.order === undefined ? (descends(sort) ? DESCENDING : ASCENDING)
        : (values.order === null ? undefined : orderOf(folded(values.order)));
    if (order === undefined) {
        return null;
    }
    if (sort !== defaultSort() || order !== ASCENDING) {  // `order` right after `sort` (namesOf)
        put(names, pairs, ranks, 'sort', sort + '&order=' + order);
    }
    return pairs.join('&');
}

// $edge_uri: the canonical path and query of a GET or HEAD on a route the edge keys; otherwise,
// or when the API would refuse it, $request_uri as it came.
function uri(r) {
    var target = r.variables.request_uri;
    if (r.method !== 'GET' && r.method !== 'HEAD') {
        return target;
    }
    var mark = target.indexOf('?');
    var path = mark < 0 ? target : target.slice(0, mark);
    if (path.substring(0, 5) !== '/api/') {
        return target;
    }
    if (path.charAt(path.length - 1) === '/') {
        path = path.slice(0, -1);
    }
    var route = routeOf(path);
    if (route === undefined) {
        return target;
    }
    var names = namesOf(route);
    var args = mark < 0 ? '' : target.slice(mark + 1);
    var query;
    try {
        var values = readPlain(names, args);
        query = canonical(route, names, unaliased(route, values !== undefined ? values : read(route, names, args)));
    } catch (e) {
        return target;
    }
    if (query === null) {
        return target;
    }
    return query === '' ? path : path + '?' + query;
}

export default {uri: uri};
