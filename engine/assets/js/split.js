// ---------------------------------------------------------------------------------------------
// The arithmetic of a split (engine/src/components/allocate.rs): amounts formatted, rescaled
// and rounded as the engine does them, and a typed weight applied in whole steps. The allocate
// widget, its form decoding and its export use it; kept apart so allocate.js holds the
// component itself.

/** `MAX_AMOUNT`: the largest total or weight. */
var MAX = 1e15;

/** `format_number`: `35`, `12.5`, `0.33` (two decimals at most, rounded half to even). */
function formatNumber(n) {
  if (n % 1 === 0 && Math.abs(n) < 1e15) return String(n === 0 ? 0 : n);
  // toFixed rounds a tie up, Rust to even; a double is a tie at hundredths only at k/8.
  var eighths = Math.abs(n % 1) * 8;
  var s = eighths % 2 === 1
    ? (n < 0 ? '-' : '') + Math.floor(Math.abs(n)) + ['.12', '.38', '.62', '.88'][(eighths - 1) / 2]
    : n.toFixed(2);
  return s.replace(/0+$/, '').replace(/\.$/, '');
}

function sum(list) {
  var s = 0;
  for (var i = 0; i < list.length; i++) s += list[i];
  return s;
}

/** `rescale`: weights scaled to sum to `total`; all zero becomes an even split. */
function rescale(weights, total) {
  var s = sum(weights);
  return weights.map(function (w) {
    return s <= 0 ? total / weights.length : w * total / s;
  });
}

/** `round_to_total`: largest remainder, whole numbers (or hundredths for a fractional total). */
function roundToTotal(weights, total) {
  var inRange = function (v) { return Math.abs(v) <= MAX; };
  if (!inRange(total) || !weights.every(inRange)) return weights.slice();
  var step = total % 1 === 0 ? 1 : 0.01;
  var scaled = weights.map(function (w) { return w / step; });
  var units = scaled.map(Math.floor);
  // At most one step per weight; what is left beyond that is noise, not handed out.
  var left = Math.min(unitsLeft(Math.round(total / step), units), units.length);
  var order = scaled.map(function (_, i) { return i; });
  order.sort(function (a, b) {
    var fa = scaled[a] - Math.floor(scaled[a]);
    var fb = scaled[b] - Math.floor(scaled[b]);
    return fb !== fa ? (fb > fa ? 1 : -1) : a - b;
  });
  for (var i = 0; i < left; i++) units[order[i]] += 1;
  return units.map(function (u) { return u * step; });
}

/**
 * `unitsTotal` minus the sum of `units`, exact as the engine's integers are: hundredths of a
 * large total pass 2^53, where adding doubles drops units, so the sums go in 2^32 halves.
 */
function unitsLeft(unitsTotal, units) {
  var B = 4294967296;
  var hi = Math.floor(unitsTotal / B);
  var lo = unitsTotal - hi * B;
  units.forEach(function (u) {
    var h = Math.floor(u / B);
    hi -= h;
    lo -= u - h * B;
  });
  return hi * B + lo;
}

/** `weights` rescaled to `total`, then rounded so they still add up to it. */
function distribute(weights, total) {
  return roundToTotal(rescale(weights, total), total);
}

/** Rust's `f64::from_str` for finite numbers; NaN for anything else (`inf` included). */
function parseWeight(v) {
  return /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)(e[+-]?[0-9]+)?$/i.test(v) ? Number(v) : NaN;
}

/** A weight field's text as the decode reads it: trailing space off, `.` for a decimal comma. */
function typedText(text) {
  return rtrim(String(text)).split(',').join('.');
}

/** `shown_weight`: a weight the page showed (`bN.was.K`); NaN when unknown. */
function shownWeight(v) {
  var w = v === undefined ? NaN : parseWeight(typedText(v));
  return w >= 0 && w <= MAX ? w : NaN;
}

/**
 * `set_units`: entry k of `base` (whole steps) set to v of `whole`. Lowering leaves a
 * remainder; raising spends the remainder first, then takes from the others in proportion.
 */
function setUnits(base, k, v, whole) {
  var u = base.slice();
  v = Math.max(0, Math.min(whole, v));
  var pool = Math.max(0, whole - sum(base));
  var d = v - base[k];
  if (d <= 0) {
    u[k] = v;
    return u;
  }
  var fromPool = Math.min(d, pool);
  var others = sum(base) - base[k];
  var rest = Math.min(d - fromPool, others);
  u[k] = base[k] + fromPool + rest;
  if (rest > 0) {
    var idx = [];
    base.forEach(function (_, i) { if (i !== k) idx.push(i); });
    var shares = distribute(idx.map(function (i) { return base[i]; }), others - rest);
    idx.forEach(function (i, j) { u[i] = shares[j]; });
  }
  return u;
}

/**
 * `keep_raised_weight`: posted weights summing to more than `total` with exactly one of them
 * changed from what the page showed keep that one (at most the total) and share the rest in
 * proportion, in whole steps as the sliders do; null when the rule does not apply.
 */
function keepRaised(total, typed, shown) {
  if (shown.some(isNaN) || !(sum(typed) > total)) return null;
  var changed = [];
  typed.forEach(function (w, k) { if (w !== shown[k]) changed.push(k); });
  if (changed.length !== 1) return null;
  var step = total % 1 === 0 ? 1 : 0.01;
  var whole = Math.round(total / step);
  var base = shown.map(function (w) { return Math.min(Math.round(w / step), whole); });
  return setUnits(base, changed[0], Math.round(typed[changed[0]] / step), whole)
    .map(function (u) { return u * step; });
}
