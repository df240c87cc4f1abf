// The edge's request target for the API's data routes: one per answer, for the cache key and
// for the request sent upstream alike, so the API computes exactly what is keyed
// (docs/OPERATIONS.md#one-key-per-answer). edge.conf.template imports it (js_set $edge_uri).
//
// The rules mirror the API's parser (parse_query_string, readiness/domain/query.py) and nothing
// more: drop names beginning with `_`, drop the names the legacy route ignores, join the values
// of a repeated list name (codes, fields, indicators) with commas and keep the last value of
// any other repeated name, trim ASCII whitespace, drop empty values, drop `code` when `codes`
// is given, sort by name, decode (`+`, %XX, UTF-8) and re-encode one way (Query.canonical()'s:
// unreserved characters, `,` and `:` as they are, every other byte %XX in upper case).
// What the API would refuse (an unknown name on a v1 route, bytes that are not UTF-8) and any
// other route or method pass as they came: their raw target is then the key.
// tests/test_edge_keys.py checks the rules against the API's parser in nginx.
//
// njs 0.7.9 (Debian bookworm) and later: ES5 with a few ES6 forms. It runs on hits too, on
// every target the template's map does not take as it came (edge.conf.template: most hits
// are already canonical), and a regular expression costs njs 0.7 a microsecond or more a call,
// so a query route's request runs one (PLAIN) or two (then PRINTABLE) and otherwise plain
// string functions and lookups.

// BEGIN ROUTES: generated from the route table (readiness/domain/routes.py) by `make edge-routes`.
// Edit the table, not these lines: tests/test_edge_routes.py fails when they differ from it.
// The names each of the API's data routes takes (its grammar in readiness/domain/routes.py),
// a trailing slash taken off the path, as one string with a space around each name;
// undefined when `path` is not a data route. Code and string constants, not a table: njs 0.7
// clones the VM for every request, and a global object graph such as {route: {name: true}}
// was copied with it, 5 microseconds a request (docs/PERFORMANCE.md#what-njs-costs-a-hit).
function namesOf(path) {
    switch (path) {
    case '/api/v1/readiness':
        return ' code codes fcv fields format income indicators level limit offset order region shortnames'
            + ' snapshot sort weights year ';
    case '/api/readiness':
        return ' code codes fcv fields format income indicators level limit order region shortnames sort'
            + ' year ';
    case '/api/v1/indicators':
        return ' code codes fcv format income indicators limit offset region shape snapshot year years ';
    case '/api/v1/history':
        return ' code codes fcv fields format income limit offset region shape years ';
    case '/api/v1/aggregates':
        return ' by fcv format income limit offset region snapshot year years ';
    case '/api/v1/rankings/changes':
        return ' code codes fcv format from income limit measure offset region to ';
    case '/api/v1/snapshots':
        return ' ';
    }
    // /api/v1/snapshots/{id}/changes
    if (path.length > 26 && path.substring(0, 18) === '/api/v1/snapshots/'
            && path.substring(path.length - 8) === '/changes'
            && path.substring(18, path.length - 8).indexOf('/') < 0) {
        return ' format ';
    }
    return undefined;
}

// Every route refuses a name it does not take (a 400), except those whose grammar is
// lenient: they ignore it.
function strict(path) {
    return path !== '/api/readiness';
}

// The list parameters: repeated, their values are joined with commas.
function isList(name) {
    return name === 'codes' || name === 'fields' || name === 'indicators';
}
// END ROUTES

// Whether a route's `names` (namesOf) hold `name`.
function takes(names, name) {
    return name.indexOf(' ') < 0 && names.indexOf(' ' + name + ' ') >= 0;
}

var PRINTABLE = /^[\x21-\x7e]*$/;
var SPACES = ' \t\n\r\x0b\x0c';

// A name or value as the API reads it: `+` a space, %XX a byte (a `%` not followed by two hex
// digits stays a `%`, as Python's unquote keeps it), the bytes UTF-8. null when they are not
// UTF-8 (the API reads U+FFFD there).
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
        try {
            return decodeURIComponent(text.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
        } catch (e2) {
            return null;
        }
    }
}

// As Query.canonical() encodes (Python's quote with `,` and `:` safe).
function encoded(text) {
    var out = encodeURIComponent(text);
    if (out.indexOf('%') >= 0) {
        if (out.indexOf('%2C') >= 0) {
            out = out.split('%2C').join(',');
        }
        if (out.indexOf('%3A') >= 0) {
            out = out.split('%3A').join(':');
        }
    }
    if (out.indexOf('!') >= 0 || out.indexOf('\'') >= 0 || out.indexOf('(') >= 0 || out.indexOf(')') >= 0
            || out.indexOf('*') >= 0) {
        out = out.split('!').join('%21').split('\'').join('%27').split('(').join('%28').split(')').join('%29')
            .split('*').join('%2A');
    }
    return out;
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

// The query string `args` of the route at `path`, which takes `names` (namesOf), normalized;
// null to leave the request as it came.
function normalized(path, names, args) {
    if (!PRINTABLE.test(args)) {
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
            if (name === null) {  // not UTF-8: the API reads U+FFFD, a name it takes from nobody
                if (raw.charAt(0) === '_' || raw.substring(0, 3).toLowerCase() === '%5f') {
                    continue;
                }
            } else if (name.charAt(0) === '_') {
                continue;
            }
            if (name === null || !takes(names, name)) {
                if (strict(path)) {
                    return null;
                }
                continue;
            }
        }
        // A list's values are joined, in order; otherwise the last value wins. One that is not
        // UTF-8 is decided on below, if it is kept.
        var given = at < 0 ? '' : decoded(pair.slice(at + 1));
        if (isList(name) && values[name] !== undefined) {
            given = values[name] === null || given === null ? null : values[name] + ',' + given;
        }
        values[name] = given;
    }
    var present = Object.keys(values);
    var kept = [];
    for (var j = 0; j < present.length; j++) {
        var value = values[present[j]];
        if (value !== null) {
            value = values[present[j]] = trimmed(value);
        }
        if (value !== '') {
            kept.push(present[j]);
        }
    }
    if (kept.indexOf('codes') >= 0 && kept.indexOf('code') >= 0) {
        kept.splice(kept.indexOf('code'), 1);
    }
    kept.sort();
    var parts = [];
    for (var k = 0; k < kept.length; k++) {
        if (values[kept[k]] === null) {
            return null;
        }
        // A name the route takes is lower-case ASCII letters: encoded as it is.
        parts.push(kept[k] + '=' + encoded(values[kept[k]]));
    }
    return parts.join('&');
}

// Pairs of a name and a plain value (letters, digits, `-.,:`, `%20` and `%26` inside, as in
// "Europe & Central Asia"), which decodes, trims and encodes to itself: the usual query, unsorted.
var PLAIN = /^[a-z]+=[-.,:0-9A-Za-z]+(?:(?:%2[06])+[-.,:0-9A-Za-z]+)*(?:&[a-z]+=[-.,:0-9A-Za-z]+(?:(?:%2[06])+[-.,:0-9A-Za-z]+)*)*$/;

// The query string `args` normalized when it is plain pairs (PLAIN) of names in `names`, each
// given once: its pairs sorted, nothing else to do; undefined otherwise (normalized decides).
// Half of normalized's work, for most requests that reach njs. Sorting `name=value` is sorting
// by name: `=` sorts before any letter, and the pairs of one name are adjacent once sorted.
function sortedPlain(names, args) {
    if (!PLAIN.test(args)) {
        return undefined;
    }
    var pairs = args.split('&');
    pairs.sort();
    var previous = '';
    for (var i = 0; i < pairs.length; i++) {
        var name = pairs[i].slice(0, pairs[i].indexOf('='));
        if (name === previous || !takes(names, name) || (name === 'codes' && previous === 'code')) {
            return undefined;
        }
        previous = name;
    }
    return pairs.join('&');
}

// $edge_uri: the normalized path and query of a GET or HEAD on a query route; otherwise, or
// when a rule cannot be applied, $request_uri as it came.
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
    var names = namesOf(path);
    if (names === undefined) {
        return target;
    }
    var args = mark < 0 ? '' : target.slice(mark + 1);
    try {
        var plain = sortedPlain(names, args);
        args = plain !== undefined ? plain : normalized(path, names, args);
    } catch (e) {
        return target;
    }
    if (args === null) {
        return target;
    }
    return args === '' ? path : path + '?' + args;
}

export default {uri: uri};
