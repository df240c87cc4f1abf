// The client a request counts against at the edge: an address block, as the API counts it
// (readiness/http/clients.py; docs/DECISIONS.md#fair-shares). An IPv6 host is usually given a
// whole /64: keyed by its full address, one host would be 2^64 clients, each with a rate, a
// miss budget and connections of its own. edge.conf.template imports it (js_set
// $edge_client_block) and calls it only for the addresses its map does not key as they are
// (IPv4 at /32, nearly every client, never runs njs). The prefix lengths are the template's
// $edge_ipv4_prefix and $edge_ipv6_prefix (EDGE_IPV4_PREFIX, EDGE_IPV6_PREFIX).
//
// njs 0.7.9 (Debian bookworm) and later: ES5 with a few ES6 forms.

// The 16-bit groups of an IPv6 address in text ("2001:db8::1", "::ffff:192.0.2.1"), eight
// numbers; undefined when it is not one.
function groups(address) {
    var halves = address.split('::');
    if (halves.length > 2) {
        return undefined;
    }
    var head = halves[0] ? halves[0].split(':') : [];
    var tail = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
    var last = tail.length ? tail : head;
    if (last.length && last[last.length - 1].indexOf('.') >= 0) {  // an IPv4 address at the end
        var octets = last.pop().split('.');
        last.push(String(((octets[0] << 8) | octets[1]).toString(16)),
                  String(((octets[2] << 8) | octets[3]).toString(16)));
    }
    var missing = 8 - head.length - tail.length;
    if (missing < 0 || (halves.length === 1 && missing !== 0)) {
        return undefined;
    }
    var all = head;
    for (var i = 0; i < missing; i++) {
        all.push('0');
    }
    all = all.concat(tail);
    var numbers = [];
    for (var j = 0; j < 8; j++) {
        var value = parseInt(all[j], 16);
        if (isNaN(value)) {
            return undefined;
        }
        numbers.push(value & 0xffff);
    }
    return numbers;
}

// The first `bits` bits of an IPv4 address, as "a.b.c.d/bits".
function ipv4Block(address, bits) {
    if (bits >= 32) {
        return address;
    }
    var octets = address.split('.');
    var kept = [];
    for (var i = 0; i < 4; i++) {
        var left = Math.max(0, Math.min(8, bits - 8 * i));
        kept.push(Number(octets[i]) & (0xff << (8 - left)) & 0xff);
    }
    return kept.join('.') + '/' + bits;
}

// The first `bits` bits of an IPv6 address's groups, as "2001:db8:1:2::/64".
function ipv6Block(numbers, bits) {
    var kept = [];
    for (var i = 0; i * 16 < bits && i < 8; i++) {
        var left = Math.min(16, bits - 16 * i);
        kept.push((numbers[i] & (0xffff << (16 - left)) & 0xffff).toString(16));
    }
    return kept.join(':') + (kept.length < 8 ? '::' : '') + '/' + bits;
}

// $edge_client_block: the client's block. An IPv4-mapped IPv6 address is its IPv4 client;
// anything that is not an address (a Unix socket's peer) is keyed as it is.
function block(r) {
    var address = r.variables.remote_addr;
    if (address.indexOf(':') < 0) {
        return ipv4Block(address, Number(r.variables.edge_ipv4_prefix));
    }
    var numbers = groups(address);
    if (numbers === undefined) {
        return address;
    }
    if (numbers[0] === 0 && numbers[1] === 0 && numbers[2] === 0 && numbers[3] === 0
            && numbers[4] === 0 && numbers[5] === 0xffff) {
        var mapped = [numbers[6] >> 8, numbers[6] & 0xff, numbers[7] >> 8, numbers[7] & 0xff].join('.');
        return ipv4Block(mapped, Number(r.variables.edge_ipv4_prefix));
    }
    return ipv6Block(numbers, Number(r.variables.edge_ipv6_prefix));
}

export default {block: block};
