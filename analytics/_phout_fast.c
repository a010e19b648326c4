/* Fast paths of phout ingestion: the parser's (analytics.phout), then the aggregation's kernels (below).
 *
 * The parser's: a block of complete, well-formed phout lines parsed in one pass.
 *
 * pyarrow's CSV reader is general (type inference, whitespace trimming, chunked builders, a dictionary of raw tags
 * that grows with every `tag#<request number>`), and with the numpy conversions around it was ~60% of the
 * ingesting process's CPU for a 10M-line file (bench/phout_upload/README.md). A phout line has one shape, so one
 * pass over the bytes fills the batch's columns directly, with the GIL released.
 *
 * The accepted grammar is deliberately a strict subset of what the other paths accept, and every value it
 * produces is the one they produce for the same line:
 *   line     = send_ts TAB tag TAB int (TAB int){9} [CR] LF
 *   send_ts  = digits ["." digits]   at most 19 digits, value below 2^53 before the point is placed
 *   int      = ["-"] digits          at most 19 digits, within the column's range (VALUE_RANGES)
 *   tag      = any bytes but TAB and LF
 * send_ts becomes a double with one IEEE division of an exact integer by an exact power of ten (Clinger's fast
 * path: the correctly rounded value, as Python's float() and pyarrow give), and the derived columns use numpy's
 * arithmetic in the same order (see _receive_sec in phout.py), compiled without contraction into FMAs.
 * Anything else in a block (a blank line, a space, an exponent, a value out of range, an implausible time) makes
 * `parse_block` return None and the block goes the general way: pyarrow, then the line-by-line path that names
 * the bad lines. So this file only has to be fast and exact on good input; it never decides what is bad.
 *
 * Tags are not kept per row: a row gets the index of its case key, the tag cut just after its last '#'
 * ("a#b#17" -> "a#b#", "#3" -> "#", "tag" -> "tag", "" -> ""), which analytics.phout.case_of_tag maps to the same
 * case as the whole tag. Keys are few (one per case), whereas raw tags are often unique per request.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define INT_FIELDS 10
#define MAX_DIGITS 19
#define OUTPUTS (3 + INT_FIELDS) /* send_ts_us, receive_sec, case key index, then the integer columns */
#define TWO_POW_53 9007199254740992ULL

static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Open-addressing table of case keys (byte ranges of the block) -> index in order of first appearance. */
typedef struct {
    const char *start;
    Py_ssize_t len;
    uint64_t hash;
    int32_t index;
} KeySlot;

typedef struct {
    KeySlot *slots;
    size_t mask; /* capacity - 1, capacity a power of two */
    int32_t count;
    const char **key_start; /* by index, for the result list */
    Py_ssize_t *key_len;
    size_t key_capacity;
} KeyTable;

static int keys_init(KeyTable *t) {
    t->mask = 63;
    t->count = 0;
    t->slots = calloc(t->mask + 1, sizeof(KeySlot));
    t->key_capacity = 16;
    t->key_start = malloc(t->key_capacity * sizeof(char *));
    t->key_len = malloc(t->key_capacity * sizeof(Py_ssize_t));
    return t->slots && t->key_start && t->key_len ? 0 : -1;
}

static void keys_free(KeyTable *t) {
    free(t->slots);
    free(t->key_start);
    free(t->key_len);
}

/* A multiply-mix over 8-byte words, for a key on every line: keys are short and few (FNV-1a's multiply per byte
 * was slower, and its quality is not needed). */
static uint64_t hash_bytes(const char *p, Py_ssize_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
    uint64_t w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    if (n > 0) {
        w = 0;
        for (Py_ssize_t i = 0; i < n; i++) w |= (uint64_t)(unsigned char)p[i] << (8 * i);
        h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
        h ^= h >> 29;
    }
    return h;
}

static int keys_grow(KeyTable *t) {
    size_t capacity = (t->mask + 1) * 2;
    KeySlot *slots = calloc(capacity, sizeof(KeySlot));
    if (!slots) return -1;
    for (size_t i = 0; i <= t->mask; i++) {
        KeySlot *s = &t->slots[i];
        if (!s->start) continue;
        size_t j = s->hash & (capacity - 1);
        while (slots[j].start) j = (j + 1) & (capacity - 1);
        slots[j] = *s;
    }
    free(t->slots);
    t->slots = slots;
    t->mask = capacity - 1;
    return 0;
}

/* The index of a key, added if new; -1 when out of memory. `start` is never NULL (NULL marks a free slot). */
static int32_t keys_index(KeyTable *t, const char *start, Py_ssize_t len) {
    uint64_t h = hash_bytes(start, len);
    size_t i = h & t->mask;
    for (;;) {
        KeySlot *s = &t->slots[i];
        if (!s->start) break;
        if (s->hash == h && s->len == len && memcmp(s->start, start, (size_t)len) == 0) return s->index;
        i = (i + 1) & t->mask;
    }
    if ((size_t)t->count == t->key_capacity) {
        size_t capacity = t->key_capacity * 2;
        const char **starts = realloc(t->key_start, capacity * sizeof(char *));
        if (!starts) return -1;
        t->key_start = starts;
        Py_ssize_t *lens = realloc(t->key_len, capacity * sizeof(Py_ssize_t));
        if (!lens) return -1;
        t->key_len = lens;
        t->key_capacity = capacity;
    }
    int32_t index = t->count++;
    t->key_start[index] = start;
    t->key_len[index] = len;
    t->slots[i] = (KeySlot){start, len, h, index};
    if ((size_t)t->count * 2 > t->mask + 1 && keys_grow(t) < 0) return -1;
    return index;
}

typedef struct {
    int64_t *send_ts_us, *receive_sec;
    int32_t *key_index;
    int64_t *ints[INT_FIELDS - 2];
    int32_t *codes[2]; /* net_code, proto_code: the last two integer fields */
    int64_t low[INT_FIELDS], high[INT_FIELDS];
    int64_t max_receive_sec;
} Outputs;

/* The run of decimal digits at `p`: returns how many there are, *value becomes *value * 10^count + their value
 * (wrapping past 19 digits in all, which every caller refuses). No check against the block's end: its last byte
 * is a LF, which ends any run. */
static inline Py_ssize_t read_digits(const char *p, uint64_t *value) {
    const char *start = p;
    uint64_t v = *value;
    while ((unsigned)(*p - '0') < 10) v = v * 10 + (uint64_t)(*p++ - '0');
    *value = v;
    return p - start;
}

/* Parse an integer ending at `end_char`; advances *pp past it. 0 on success. */
static inline int parse_int(const char **pp, const char *end, char end_char, int64_t *out) {
    const char *p = *pp;
    int negative = 0;
    if (*p == '-') {
        negative = 1;
        p++;
    }
    uint64_t v = 0;
    Py_ssize_t n = read_digits(p, &v);
    p += n;
    if (n == 0 || n > MAX_DIGITS) return -1;
    /* 19 digits fit in uint64; int64's limits are checked here. */
    if (negative ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX) return -1;
    if (end_char == '\n' && p < end && *p == '\r') p++;
    if (p >= end || *p != end_char) return -1;
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    *pp = p + 1;
    return 0;
}

/* The end of the tag starting at `p`: its TAB, a LF (a line without the other fields) or `end`; *last_hash is set
 * to its last '#', if any. Sixteen bytes at a time where SSE2 is (every x86-64): tags are short, and two memchr
 * calls and a scan back for the '#' cost more than the whole tag's bytes. */
static inline const char *scan_tag(const char *p, const char *end, const char **last_hash) {
#ifdef __SSE2__
    const __m128i tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n'), hash = _mm_set1_epi8('#');
    for (; end - p >= 16; p += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)p);
        unsigned stop = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, tab), _mm_cmpeq_epi8(x, lf)));
        unsigned hashes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, hash));
        if (stop) hashes &= (1u << __builtin_ctz(stop)) - 1; /* only the '#'s before the stop */
        if (hashes) *last_hash = p + 31 - __builtin_clz(hashes);
        if (stop) return p + __builtin_ctz(stop);
    }
#endif
    for (; p < end; p++) {
        if (*p == '\t' || *p == '\n') return p;
        if (*p == '#') *last_hash = p;
    }
    return end;
}

/* Parse the whole block: the number of rows, -1 when a line is outside the grammar, -2 when out of memory, -3 when
 * the outputs have no room for more rows. */
static Py_ssize_t parse_lines(const char *p, const char *end, Py_ssize_t capacity, Outputs *o, KeyTable *keys) {
    Py_ssize_t row = 0;
    while (p < end) {
        if (row == capacity) return -3;
        /* send_ts */
        uint64_t mantissa = 0;
        Py_ssize_t fraction_digits = 0;
        Py_ssize_t whole_digits = read_digits(p, &mantissa);
        p += whole_digits;
        if (whole_digits == 0) return -1;
        if (*p == '.') {
            p++;
            fraction_digits = read_digits(p, &mantissa);
            p += fraction_digits;
        }
        if (whole_digits + fraction_digits > MAX_DIGITS || mantissa > TWO_POW_53 || *p != '\t') return -1;
        double send_ts = (double)mantissa / POW10[fraction_digits];
        p++;
        /* tag, up to the next TAB; its case key ends just after its last '#' */
        const char *tag = p;
        const char *last_hash = NULL;
        const char *tab = scan_tag(p, end, &last_hash);
        if (tab == end || *tab != '\t') return -1;
        const char *key_end = last_hash ? last_hash + 1 : tab; /* just after the last '#', or the whole tag */
        int32_t key = keys_index(keys, tag, key_end - tag);
        if (key < 0) return -2;
        p = tab + 1;
        /* the ten integers */
        int64_t v[INT_FIELDS];
        for (int i = 0; i < INT_FIELDS; i++) {
            if (parse_int(&p, end, i == INT_FIELDS - 1 ? '\n' : '\t', &v[i]) < 0) return -1;
            if (v[i] < o->low[i] || v[i] > o->high[i]) return -1;
        }
        /* receive second, as _receive_sec: float seconds plus float(µs) / 1e6, truncated */
        double receive = send_ts + (double)v[0] / 1e6;
        if (!(send_ts > 0) || !isfinite(receive) || receive < 0 || receive >= 4611686018427387904.0) return -1;
        int64_t receive_sec = (int64_t)receive;
        if (receive_sec > o->max_receive_sec) return -1;
        o->send_ts_us[row] = (int64_t)nearbyint(send_ts * 1e6);
        o->receive_sec[row] = receive_sec;
        o->key_index[row] = key;
        for (int i = 0; i < INT_FIELDS - 2; i++) o->ints[i][row] = v[i];
        o->codes[0][row] = (int32_t)v[INT_FIELDS - 2];
        o->codes[1][row] = (int32_t)v[INT_FIELDS - 1];
        row++;
    }
    return row;
}

/* Buffers taken from Python objects, released together on every way out. */
typedef struct {
    Py_buffer view;
    int taken;
} View;

/* A C-contiguous buffer of `itemsize`-byte items: exactly `items` of them, or any number when `items` < 0. */
static int take_view(PyObject *obj, View *v, Py_ssize_t itemsize, Py_ssize_t items, int writable, const char *what) {
    if (PyObject_GetBuffer(obj, &v->view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0) return -1;
    v->taken = 1;
    if (items < 0 ? v->view.itemsize != itemsize : v->view.itemsize != itemsize || v->view.len != itemsize * items) {
        if (items < 0)
            PyErr_Format(PyExc_ValueError, "%s must have items of %zd bytes", what, itemsize);
        else
            PyErr_Format(PyExc_ValueError, "%s must hold %zd items of %zd bytes", what, items, itemsize);
        return -1;
    }
    return 0;
}

static void drop_views(View *views, int n) {
    for (int i = 0; i < n; i++)
        if (views[i].taken) PyBuffer_Release(&views[i].view);
}

/* Item sizes of the outputs, in order: send_ts_us, receive_sec, key index, 8 int64 columns, 2 int32 codes. */
static const Py_ssize_t OUTPUT_ITEMSIZE[OUTPUTS] = {8, 8, 4, 8, 8, 8, 8, 8, 8, 8, 8, 4, 4};

PyDoc_STRVAR(parse_block_doc,
             "parse_block(block, outputs, ranges, max_receive_sec) -> (rows, keys) | None\n\n"
             "Parse a block of complete phout lines into `outputs`, 13 writable C-contiguous buffers with room for\n"
             "every line: send_ts_us, receive_sec (int64), case key index (int32), interval_real .. size_in (int64),\n"
             "net_code, proto_code (int32). `ranges` holds (low, high) of the 10 integer fields. Returns the rows\n"
             "written and the case keys (bytes, by index); rows -1 when the outputs are too short for the block's\n"
             "lines; None when any line is outside the fast grammar, or the block does not end with a LF.");

static PyObject *parse_block(PyObject *self, PyObject *args) {
    Py_buffer block;
    PyObject *outputs, *ranges;
    long long max_receive_sec;
    if (!PyArg_ParseTuple(args, "y*OOL", &block, &outputs, &ranges, &max_receive_sec)) return NULL;
    PyObject *result = NULL;
    View ov[OUTPUTS] = {{{0}}};
    KeyTable keys = {0};
    Outputs o;
    Py_ssize_t capacity = PY_SSIZE_T_MAX;
    if (!PyTuple_Check(outputs) || PyTuple_GET_SIZE(outputs) != OUTPUTS) {
        PyErr_Format(PyExc_ValueError, "outputs must be a tuple of %d buffers", OUTPUTS);
        goto done;
    }
    if (!PyTuple_Check(ranges) || PyTuple_GET_SIZE(ranges) != INT_FIELDS) {
        PyErr_Format(PyExc_ValueError, "ranges must be a tuple of %d (low, high) pairs", INT_FIELDS);
        goto done;
    }
    for (int i = 0; i < INT_FIELDS; i++) {
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(ranges, i), "LL", &o.low[i], &o.high[i])) goto done;
    }
    for (int i = 0; i < OUTPUTS; i++) {
        char what[16];
        snprintf(what, sizeof what, "output %d", i);
        if (take_view(PyTuple_GET_ITEM(outputs, i), &ov[i], OUTPUT_ITEMSIZE[i], -1, 1, what) < 0) goto done;
        Py_ssize_t items = ov[i].view.len / OUTPUT_ITEMSIZE[i];
        if (items < capacity) capacity = items;
    }
    o.send_ts_us = ov[0].view.buf;
    o.receive_sec = ov[1].view.buf;
    o.key_index = ov[2].view.buf;
    for (int i = 0; i < INT_FIELDS - 2; i++) o.ints[i] = ov[3 + i].view.buf;
    o.codes[0] = ov[OUTPUTS - 2].view.buf;
    o.codes[1] = ov[OUTPUTS - 1].view.buf;
    o.max_receive_sec = max_receive_sec;
    if (keys_init(&keys) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t rows;
    const char *start = block.buf;
    if (block.len > 0 && start[block.len - 1] != '\n') {
        rows = -1; /* the scans below stop at the block's last LF rather than check every byte against its end */
    } else {
        Py_BEGIN_ALLOW_THREADS;
        rows = parse_lines(start, start + block.len, capacity, &o, &keys);
        Py_END_ALLOW_THREADS;
    }
    if (rows == -2) {
        PyErr_NoMemory();
        goto done;
    }
    if (rows == -3) {
        result = Py_BuildValue("(nN)", (Py_ssize_t)-1, PyList_New(0));
        goto done;
    }
    if (rows < 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *key_list = PyList_New(keys.count);
    if (!key_list) goto done;
    for (int32_t i = 0; i < keys.count; i++) {
        PyObject *key = PyBytes_FromStringAndSize(keys.key_start[i], keys.key_len[i]);
        if (!key) {
            Py_DECREF(key_list);
            goto done;
        }
        PyList_SET_ITEM(key_list, i, key);
    }
    result = Py_BuildValue("(nN)", rows, key_list);
done:
    keys_free(&keys);
    drop_views(ov, OUTPUTS);
    PyBuffer_Release(&block);
    return result;
}

/* ── aggregation kernels (analytics.aggregate) ──────────────────────────────────────────────────────────────
 * Per-group sums and counts of one piece of samples, in one pass instead of a dozen numpy passes (bincount per
 * figure, np.where per mask): ~45% of the aggregating thread's CPU before. Sums of times are accumulated in double
 * in row order, which is exactly what bincount with weights does, so results are bit for bit the same. */

enum { T_GROUP, T_TIMED, T_REAL, T_CONNECT, T_SEND, T_LATENCY, T_RECEIVE, T_SIZE_IN, T_SIZE_OUT, T_INPUTS };
enum {
    O_COUNTS,
    O_TIMED_COUNTS,
    O_REAL_SUM,
    O_PHASE_SUM0,
    O_PHASE_COUNT0 = O_PHASE_SUM0 + 4,
    O_SIZE_IN = O_PHASE_COUNT0 + 4,
    O_SIZE_OUT,
    O_OUTPUTS
};

PyDoc_STRVAR(group_totals_doc,
             "group_totals(inputs, outputs, sentinel_abs)\n\n"
             "inputs: group (int64, each in 0..groups-1), timed (bool), interval_real, connect, send, latency,\n"
             "receive, size_in, size_out (int64), all of one length. outputs, zeroed, of length groups: counts,\n"
             "timed counts (int64), interval_real sums (float64), 4 phase sums (float64), 4 phase counts (int64),\n"
             "size_in and size_out sums (int64). A phase counts where the row is timed and |value| < sentinel_abs.");

static PyObject *group_totals(PyObject *self, PyObject *args) {
    PyObject *inputs, *outputs;
    long long sentinel_abs;
    if (!PyArg_ParseTuple(args, "O!O!L", &PyTuple_Type, &inputs, &PyTuple_Type, &outputs, &sentinel_abs)) return NULL;
    if (PyTuple_GET_SIZE(inputs) != T_INPUTS || PyTuple_GET_SIZE(outputs) != O_OUTPUTS) {
        PyErr_Format(PyExc_ValueError, "expected %d inputs and %d outputs", T_INPUTS, O_OUTPUTS);
        return NULL;
    }
    View in[T_INPUTS] = {{{0}}}, out[O_OUTPUTS] = {{{0}}};
    PyObject *result = NULL;
    Py_ssize_t rows = PyObject_Length(PyTuple_GET_ITEM(inputs, T_GROUP));
    Py_ssize_t groups = PyObject_Length(PyTuple_GET_ITEM(outputs, O_COUNTS));
    if (rows < 0 || groups < 0) goto done;
    for (int i = 0; i < T_INPUTS; i++)
        if (take_view(PyTuple_GET_ITEM(inputs, i), &in[i], i == T_TIMED ? 1 : 8, rows, 0, "every input") < 0) goto done;
    for (int i = 0; i < O_OUTPUTS; i++)
        if (take_view(PyTuple_GET_ITEM(outputs, i), &out[i], 8, groups, 1, "every output") < 0) goto done;
    const int64_t *group = in[T_GROUP].view.buf;
    const char *timed = in[T_TIMED].view.buf;
    const int64_t *real = in[T_REAL].view.buf, *size_in = in[T_SIZE_IN].view.buf, *size_out = in[T_SIZE_OUT].view.buf;
    const int64_t *phase[4];
    double *phase_sum[4];
    int64_t *phase_count[4];
    for (int k = 0; k < 4; k++) {
        phase[k] = in[T_CONNECT + k].view.buf;
        phase_sum[k] = out[O_PHASE_SUM0 + k].view.buf;
        phase_count[k] = out[O_PHASE_COUNT0 + k].view.buf;
    }
    int64_t *counts = out[O_COUNTS].view.buf, *timed_counts = out[O_TIMED_COUNTS].view.buf;
    int64_t *size_in_sum = out[O_SIZE_IN].view.buf, *size_out_sum = out[O_SIZE_OUT].view.buf;
    double *real_sum = out[O_REAL_SUM].view.buf;
    int bad_group = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < rows; i++) {
        int64_t g = group[i];
        if (g < 0 || g >= groups) {
            bad_group = 1;
            break;
        }
        counts[g]++;
        size_in_sum[g] += size_in[i];
        size_out_sum[g] += size_out[i];
        if (!timed[i]) continue;
        timed_counts[g]++;
        real_sum[g] += (double)real[i];
        for (int k = 0; k < 4; k++) {
            int64_t v = phase[k][i];
            if (v > -sentinel_abs && v < sentinel_abs) {
                phase_sum[k][g] += (double)v;
                phase_count[k][g]++;
            }
        }
    }
    Py_END_ALLOW_THREADS;
    if (bad_group) {
        PyErr_SetString(PyExc_ValueError, "a group number is outside 0..groups-1");
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    drop_views(in, T_INPUTS);
    drop_views(out, O_OUTPUTS);
    return result;
}

PyDoc_STRVAR(count_pairs_doc,
             "count_pairs(group, code, mask, code_min, table)\n\n"
             "table (int64, zeroed, groups x span flattened) gets +1 at group * span + (code - code_min) for every\n"
             "row where mask (bool, or None for every row) is set. group, code: int64; codes within the span.");

static PyObject *count_pairs(PyObject *self, PyObject *args) {
    PyObject *group_obj, *code_obj, *mask_obj, *table_obj;
    long long code_min, span;
    if (!PyArg_ParseTuple(args, "OOOLLO", &group_obj, &code_obj, &mask_obj, &code_min, &span, &table_obj)) return NULL;
    View v[4] = {{{0}}};
    PyObject *result = NULL;
    Py_ssize_t rows = PyObject_Length(group_obj), cells = PyObject_Length(table_obj);
    if (rows < 0 || cells < 0) goto done;
    if (span <= 0 || cells % span) {
        PyErr_SetString(PyExc_ValueError, "the table must hold whole rows of `span` cells");
        goto done;
    }
    if (take_view(group_obj, &v[0], 8, rows, 0, "group") < 0 || take_view(code_obj, &v[1], 8, rows, 0, "code") < 0 ||
        (mask_obj != Py_None && take_view(mask_obj, &v[2], 1, rows, 0, "mask") < 0) ||
        take_view(table_obj, &v[3], 8, cells, 1, "table") < 0)
        goto done;
    const int64_t *group = v[0].view.buf, *code = v[1].view.buf;
    const char *mask = mask_obj == Py_None ? NULL : v[2].view.buf;
    int64_t *table = v[3].view.buf;
    int64_t groups = cells / span;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < rows; i++) {
        if (mask && !mask[i]) continue;
        int64_t g = group[i], c = code[i] - code_min;
        if (g < 0 || g >= groups || c < 0 || c >= span) {
            bad = 1;
            break;
        }
        table[g * span + c]++;
    }
    Py_END_ALLOW_THREADS;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "a group or code is outside the table");
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    drop_views(v, 4);
    return result;
}

static PyMethodDef methods[] = {
    {"parse_block", parse_block, METH_VARARGS, parse_block_doc},
    {"group_totals", group_totals, METH_VARARGS, group_totals_doc},
    {"count_pairs", count_pairs, METH_VARARGS, count_pairs_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "analytics._phout_fast", "The fast paths of analytics.phout and analytics.aggregate (see the C source).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__phout_fast(void) { return PyModule_Create(&module); }
