/* Fast paths of phout ingestion: the parser's (analytics.phout), then the aggregation's kernels (below).
 *
 * The parser's: a block of complete, well-formed phout lines parsed in one pass.
 *
 * pyarrow's CSV reader is general (type inference, whitespace trimming, chunked builders, a dictionary of raw tags
 * that grows with every `tag#<request number>`): with the numpy conversions around it, it is most of an
 * ingestion's CPU (bench/phout_upload/README.md). A phout line has one shape, so one pass over the bytes fills the
 * batch's columns directly, with the GIL released.
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

/* A multiply-mix over 8-byte words, for a key on every line: keys are short and few (one multiply per word, not
 * FNV-1a's one per byte, whose quality is not needed). */
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

/* The outputs in the order parse_block takes them: send_ts_us, receive_sec, case key index, then the integer
 * columns, each as narrow as `samples` stores it (analytics.phout.INT_DTYPES). This one list makes Outputs'
 * pointers, the item sizes parse_block checks and the binding of the buffers to the pointers, so they agree. */
#define OUTPUT_COLUMNS(X)                                                                                         \
    X(int64_t, send_ts_us) X(int64_t, receive_sec) X(int32_t, key_index) X(uint32_t, interval_real)              \
    X(int64_t, connect) X(int32_t, send) X(int64_t, latency) X(int64_t, receive) X(int32_t, interval_event)     \
    X(uint32_t, size_out) X(uint32_t, size_in) X(int16_t, net_code) X(int16_t, proto_code)

#define OUTPUT_POINTER(type, name) type *name;
typedef struct {
    OUTPUT_COLUMNS(OUTPUT_POINTER)
    int64_t low[INT_FIELDS], high[INT_FIELDS]; /* the ranges those widths hold, or narrower */
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
        /* Each value is within its column's range (checked above), so each cast keeps it. */
        o->interval_real[row] = (uint32_t)v[0];
        o->connect[row] = v[1];
        o->send[row] = (int32_t)v[2];
        o->latency[row] = v[3];
        o->receive[row] = v[4];
        o->interval_event[row] = (int32_t)v[5];
        o->size_out[row] = (uint32_t)v[6];
        o->size_in[row] = (uint32_t)v[7];
        o->net_code[row] = (int16_t)v[8];
        o->proto_code[row] = (int16_t)v[9];
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

#define OUTPUT_SIZE(type, name) sizeof(type),
static const Py_ssize_t OUTPUT_ITEMSIZE[] = {OUTPUT_COLUMNS(OUTPUT_SIZE)};
_Static_assert(sizeof OUTPUT_ITEMSIZE / sizeof OUTPUT_ITEMSIZE[0] == OUTPUTS, "OUTPUTS counts OUTPUT_COLUMNS");
/* What those types hold, for the ten integer fields: no range passed in may be wider (a value would be wrapped). */
static const int64_t FIELD_MIN[INT_FIELDS] = {0, INT64_MIN, INT32_MIN, INT64_MIN, INT64_MIN, INT32_MIN, 0, 0,
                                              INT16_MIN, INT16_MIN};
static const int64_t FIELD_MAX[INT_FIELDS] = {UINT32_MAX, INT64_MAX, INT32_MAX, INT64_MAX, INT64_MAX, INT32_MAX,
                                              UINT32_MAX, UINT32_MAX, INT16_MAX, INT16_MAX};

PyDoc_STRVAR(parse_block_doc,
             "parse_block(block, outputs, ranges, max_receive_sec) -> (rows, keys) | None\n\n"
             "Parse a block of complete phout lines into `outputs`, 13 writable C-contiguous buffers with room for\n"
             "every line: send_ts_us, receive_sec (int64), case key index (int32), then interval_real (uint32),\n"
             "connect (int64), send (int32), latency, receive (int64), interval_event (int32), size_out, size_in\n"
             "(uint32), net_code, proto_code (int16). `ranges` holds (low, high) of the 10 integer fields, each\n"
             "within its column's type (a line with a value outside its range is outside the grammar). Returns the rows\n"
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
        if (o.low[i] < FIELD_MIN[i] || o.high[i] > FIELD_MAX[i]) {
            PyErr_Format(PyExc_ValueError, "the range of integer field %d is wider than its column's type", i);
            goto done;
        }
    }
    for (int i = 0; i < OUTPUTS; i++) {
        char what[16];
        snprintf(what, sizeof what, "output %d", i);
        if (take_view(PyTuple_GET_ITEM(outputs, i), &ov[i], OUTPUT_ITEMSIZE[i], -1, 1, what) < 0) goto done;
        Py_ssize_t items = ov[i].view.len / OUTPUT_ITEMSIZE[i];
        if (items < capacity) capacity = items;
    }
    int column = 0;
#define BIND_OUTPUT(type, name) o.name = ov[column++].view.buf;
    OUTPUT_COLUMNS(BIND_OUTPUT)
#undef BIND_OUTPUT
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

/* ── aggregation kernel (analytics.aggregate) ──────────────────────────────────────────────────────────────────
 * Everything aggregate_table needs per (second, case) group of one piece of samples: counts, sums, the histogram
 * on the tank's grid, net and HTTP code counts, and the quantiles of each group and of each second. numpy takes
 * ~40 passes over the piece for it (masks, bin lookups, bincounts, (group, code) tables read back with nonzero,
 * two sorts of packed keys; bench/phout_upload/README.md has the cost). Here the rows are put in group
 * order once (a counting sort, stable) and each group is then done in one pass over its rows; the quantiles of a
 * group, then of a second, are selected from its response times without sorting them all (quantiles_ms).
 *
 * Bit for bit what the numpy path gives (analytics/tests/test_aggregate_native.py compares them): sums of times are
 * accumulated in double in row order within a group, as bincount with weights does; integer sums are exact; the
 * quantiles are numpy's 'linear' method with the same operations in the same order, compiled without contraction
 * into FMAs (pyproject.toml). */

enum { A_GROUP, A_REAL, A_CONNECT, A_SEND, A_LATENCY, A_RECEIVE, A_SIZE_IN, A_SIZE_OUT, A_NET, A_PROTO, A_INPUTS };
/* The inputs' item sizes: group int64, then the sample columns as the parser types them (phout.INT_DTYPES). */
static const Py_ssize_t INPUT_ITEMSIZE[A_INPUTS] = {8, 4, 8, 4, 8, 8, 4, 4, 2, 2};
enum {
    G_COUNTS,
    G_TIMED_COUNTS,
    G_REAL_SUM,
    G_PHASE_SUM0,
    G_PHASE_COUNT0 = G_PHASE_SUM0 + 4,
    G_SIZE_IN = G_PHASE_COUNT0 + 4,
    G_SIZE_OUT,
    G_QUANTILES,
    G_OUTPUTS
};
enum { SPARSE_HIST, SPARSE_NET, SPARSE_HTTP, SPARSE_SETS };
enum { GRID_BELOW, GRID_SEG_EDGE, GRID_SEG_STEP, GRID_SEG_INDEX, GRID_ARRAYS, GRID_ITEMS = GRID_ARRAYS + 3 };
#define CODE_TABLE 1024 /* net and HTTP codes counted in a table; others (rare) sorted */
#define INSERTION_SORT_BELOW 48

typedef struct {
    const int64_t *below; /* bin of each table_step µs below table_limit */
    const int64_t *seg_edge, *seg_step, *seg_index;
    Py_ssize_t segments;
    int64_t table_step, table_limit, max_hist, bin_count;
} Grid;

/* analytics.histogram.bin_indexes_for_values_us for one value. */
static inline int64_t bin_of(int64_t v, const Grid *g) {
    if (v >= 0 && v < g->table_limit) return g->below[v / g->table_step];
    if (v < 0 || v > g->max_hist) return -1;
    if (v == g->max_hist) return g->bin_count - 1;
    Py_ssize_t s = g->segments - 1;
    while (s > 0 && g->seg_edge[s] > v) s--;
    return g->seg_index[s] + (v - g->seg_edge[s]) / g->seg_step[s] + 1;
}

/* Counts of small non-negative keys, and which keys were touched, so a group's few keys are read back without
 * scanning the whole table (the histogram has 3721 bins). */
typedef struct {
    int64_t *count;
    int32_t *touched;
    Py_ssize_t touched_n, size;
} Counter;

static inline __attribute__((always_inline)) void counter_add(Counter *c, int64_t key) {
    if (c->count[key]++ == 0) c->touched[c->touched_n++] = (int32_t)key;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Where a group's (group, code, count) entries are appended. */
typedef struct {
    int64_t *group, *code, *count;
    Py_ssize_t n, capacity;
} Sparse;

static inline int sparse_put(Sparse *s, int64_t group, int64_t code, int64_t count) {
    if (s->n >= s->capacity) return -1;
    s->group[s->n] = group;
    s->code[s->n] = code;
    s->count[s->n] = count;
    s->n++;
    return 0;
}

/* The counter's keys (plus `offset`) in ascending order with their counts, then the counter emptied. */
static int counter_emit(Counter *c, int64_t group, int64_t offset, Sparse *out) {
    int bad = 0;
    if (c->touched_n * 8 < c->size) {
        qsort(c->touched, (size_t)c->touched_n, sizeof(int32_t), cmp_i32);
        for (Py_ssize_t i = 0; i < c->touched_n; i++) {
            int32_t k = c->touched[i];
            bad |= sparse_put(out, group, k + offset, c->count[k]);
            c->count[k] = 0;
        }
    } else {
        for (Py_ssize_t k = 0; k < c->size; k++)
            if (c->count[k]) {
                bad |= sparse_put(out, group, k + offset, c->count[k]);
                c->count[k] = 0;
            }
    }
    c->touched_n = 0;
    return bad;
}

/* A group's codes: those in 0..CODE_TABLE-1 counted in `table`, the rest gathered in `other`, then all of them
 * emitted in ascending order. */
typedef struct {
    Counter table;
    int64_t *other;
    Py_ssize_t other_n;
} CodeCounts;

static inline __attribute__((always_inline)) void codes_add(CodeCounts *c, int64_t code) {
    if (code >= 0 && code < CODE_TABLE)
        counter_add(&c->table, code);
    else
        c->other[c->other_n++] = code;
}

/* The runs of equal values of sorted v[*i..n) up to `last`, each as (group, value, run length); *i moves past them. */
static int runs_emit(const int64_t *v, Py_ssize_t *i, Py_ssize_t n, int64_t last, int64_t group, Sparse *out) {
    int bad = 0;
    while (*i < n && v[*i] <= last) {
        Py_ssize_t j = *i;
        while (j < n && v[j] == v[*i]) j++;
        bad |= sparse_put(out, group, v[*i], j - *i);
        *i = j;
    }
    return bad;
}

static int codes_emit(CodeCounts *c, int64_t group, Sparse *out) {
    Py_ssize_t i = 0, n = c->other_n;
    qsort(c->other, (size_t)n, sizeof(int64_t), cmp_i64);
    int bad = runs_emit(c->other, &i, n, -1, group, out); /* negative codes come first */
    bad |= counter_emit(&c->table, group, 0, out);
    bad |= runs_emit(c->other, &i, n, INT64_MAX, group, out);
    c->other_n = 0;
    return bad;
}

/* max(v) - min(v) of v[0..n), n > 0, as an unsigned span, and min(v) in *low. */
static uint64_t span_of(const int64_t *v, Py_ssize_t n, int64_t *low) {
    int64_t lo = v[0], hi = v[0];
    for (Py_ssize_t i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    *low = lo;
    return (uint64_t)hi - (uint64_t)lo;
}

/* v[0..n) sorted ascending; `tmp` has room for n. Returns where the sorted values are: v or tmp. An LSD radix sort
 * by bytes of (value - minimum), the counts of every byte taken in one pass, and the bytes every value shares (the
 * high ones, for response times) skipped. */
static int64_t *sort_values(int64_t *v, int64_t *tmp, Py_ssize_t n) {
    if (n < INSERTION_SORT_BELOW) {
        for (Py_ssize_t i = 1; i < n; i++) {
            int64_t x = v[i];
            Py_ssize_t j = i;
            for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
            v[j] = x;
        }
        return v;
    }
    int64_t lo;
    uint64_t span = span_of(v, n, &lo);
    int bytes = 0;
    while (bytes < 8 && (span >> (8 * bytes)) != 0) bytes++;
    Py_ssize_t count[8][256];
    memset(count, 0, sizeof(Py_ssize_t) * 256 * (size_t)bytes);
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t key = (uint64_t)v[i] - (uint64_t)lo;
        for (int b = 0; b < bytes; b++) count[b][(key >> (8 * b)) & 255]++;
    }
    int64_t *src = v, *dst = tmp;
    for (int b = 0; b < bytes; b++) {
        Py_ssize_t at = 0, *c = count[b];
        int shared = 0;
        for (int d = 0; d < 256; d++) {
            Py_ssize_t here = c[d];
            shared |= here == n;
            c[d] = at;
            at += here;
        }
        if (shared) continue;
        for (Py_ssize_t i = 0; i < n; i++) dst[c[(((uint64_t)src[i] - (uint64_t)lo) >> (8 * b)) & 255]++] = src[i];
        int64_t *swap = src;
        src = dst;
        dst = swap;
    }
    return src;
}

/* The ranks numpy's 'linear' percentile reads for a level (as analytics.aggregate._group_quantiles_ms computes
 * them), and the value it makes of the values there, in ms. */
typedef struct {
    Py_ssize_t below, above;
    double t;
} Ranks;

static inline Ranks ranks_of(Py_ssize_t n, double level) {
    double virtual_index = ((double)n - 1) * level;
    double below = floor(virtual_index);
    Ranks r = {(Py_ssize_t)below, 0, virtual_index - below};
    r.above = r.below + 1 < n ? r.below + 1 : n - 1;
    return r;
}

static inline double lerp_ms(int64_t below, int64_t above, double t) {
    double a = (double)below, b = (double)above;
    double diff = b - a;
    double lerp = t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
    return lerp / 1000.0;
}

#define SELECT_FROM 1024 /* fewer values are simply sorted */
#define SELECT_BITS 12
#define SELECT_BUCKETS (1 << SELECT_BITS)
#define MAX_LEVELS 32

/* What quantile selection reuses from one set of values to the next. */
typedef struct {
    Py_ssize_t first_rank[SELECT_BUCKETS + 1];
    int16_t slot[SELECT_BUCKETS]; /* -1, or where a needed bucket's values are gathered */
} Selector;

/* np.percentile(values, levels * 100) / 1000 ('linear') of v[0..n) in any order, into out[0..levels_n); v is not
 * changed. `tmp` and `tmp2` have room for n.
 * Only the values at the ranks the levels read are needed, so instead of sorting all of them (a group's, then again
 * a second's), the values are counted into 4096 buckets of equal width, and only the buckets holding those ranks
 * (at most two per level) are gathered and sorted: two passes over the values, and sorts of a few buckets. */
static void quantiles_ms(const int64_t *v, Py_ssize_t n, const double *levels, Py_ssize_t levels_n, double *out,
                         int64_t *tmp, int64_t *tmp2, Selector *sel) {
    if (n == 0) {
        for (Py_ssize_t j = 0; j < levels_n; j++) out[j] = 0.0;
        return;
    }
    if (n < SELECT_FROM || levels_n > MAX_LEVELS) {
        memcpy(tmp, v, sizeof(int64_t) * (size_t)n);
        const int64_t *sorted = sort_values(tmp, tmp2, n);
        for (Py_ssize_t j = 0; j < levels_n; j++) {
            Ranks r = ranks_of(n, levels[j]);
            out[j] = lerp_ms(sorted[r.below], sorted[r.above], r.t);
        }
        return;
    }
    int64_t lo;
    uint64_t span = span_of(v, n, &lo);
    int shift = 0;
    while ((span >> shift) >= SELECT_BUCKETS) shift++;
    Py_ssize_t *first = sel->first_rank;
    memset(first, 0, sizeof(Py_ssize_t) * (SELECT_BUCKETS + 1));
    for (Py_ssize_t i = 0; i < n; i++) first[(((uint64_t)v[i] - (uint64_t)lo) >> shift) + 1]++;
    for (Py_ssize_t b = 1; b <= SELECT_BUCKETS; b++) first[b] += first[b - 1];
    /* The buckets holding the ranks read, each given a stretch of tmp as long as the bucket. */
    Ranks ranks[MAX_LEVELS];
    Py_ssize_t bucket_of[2 * MAX_LEVELS], needed[2 * MAX_LEVELS], offset[2 * MAX_LEVELS + 1], fill[2 * MAX_LEVELS];
    Py_ssize_t needed_n = 0;
    offset[0] = 0;
    for (Py_ssize_t j = 0; j < levels_n; j++) {
        ranks[j] = ranks_of(n, levels[j]);
        for (int side = 0; side < 2; side++) {
            Py_ssize_t rank = side ? ranks[j].above : ranks[j].below, low = 0, high = SELECT_BUCKETS - 1;
            while (low < high) { /* the last bucket whose first rank is <= rank */
                Py_ssize_t mid = (low + high + 1) / 2;
                if (first[mid] <= rank)
                    low = mid;
                else
                    high = mid - 1;
            }
            if (sel->slot[low] < 0) {
                sel->slot[low] = (int16_t)needed_n;
                needed[needed_n] = low;
                fill[needed_n] = 0;
                offset[needed_n + 1] = offset[needed_n] + first[low + 1] - first[low];
                needed_n++;
            }
            bucket_of[2 * j + side] = low;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int16_t slot = sel->slot[((uint64_t)v[i] - (uint64_t)lo) >> shift];
        if (slot >= 0) tmp[offset[slot] + fill[slot]++] = v[i];
    }
    for (Py_ssize_t k = 0; k < needed_n; k++) {
        int64_t *bucket = tmp + offset[k];
        Py_ssize_t size = offset[k + 1] - offset[k];
        int64_t *sorted = shift ? sort_values(bucket, tmp2, size) : bucket; /* width 1: equal values */
        if (sorted != bucket) memcpy(bucket, sorted, sizeof(int64_t) * (size_t)size);
    }
    for (Py_ssize_t j = 0; j < levels_n; j++) {
        int64_t at[2];
        for (int side = 0; side < 2; side++) {
            Py_ssize_t b = bucket_of[2 * j + side], rank = side ? ranks[j].above : ranks[j].below;
            at[side] = tmp[offset[sel->slot[b]] + rank - first[b]];
        }
        out[j] = lerp_ms(at[0], at[1], ranks[j].t);
    }
    for (Py_ssize_t k = 0; k < needed_n; k++) sel->slot[needed[k]] = -1;
}

PyDoc_STRVAR(group_aggregate_doc,
             "group_aggregate(inputs, group_outputs, seconds, sparse, grid, levels, sentinel_abs, discarded_net)\n"
             "-> (hist entries, net entries, http entries)\n\n"
             "inputs: group (int64, each in 0..groups-1), interval_real (uint32), connect (int64), send (int32),\n"
             "latency, receive (int64), size_in, size_out (uint32), net_code, proto_code (int16), all of one length.\n"
             "group_outputs, of length groups:\n"
             "counts, timed counts (int64), interval_real sums (float64), 4 phase sums (float64), 4 phase counts\n"
             "(int64), size_in and size_out sums (int64), then the quantiles in ms (float64, groups x levels).\n"
             "seconds: (bounds, quantiles): the first group of each second and the end (int64, seconds + 1, from\n"
             "0 to groups, non-decreasing), and the quantiles of each second's timed rows (float64, seconds x\n"
             "levels). sparse: 9 int64 buffers of one capacity, (group, code, count) of the histogram bins, the net\n"
             "codes and the HTTP codes, filled in group then code order. grid: analytics.histogram.native_grid().\n"
             "levels: quantile levels as fractions (float64). A row is timed unless its net code is discarded_net\n"
             "and its times are all zero; a phase counts where the row is timed and |value| < sentinel_abs.");

static PyObject *group_aggregate(PyObject *self, PyObject *args) {
    PyObject *inputs, *outputs, *seconds, *sparse_objs, *grid_objs, *levels_obj;
    long long sentinel_abs, discarded_net;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!OLL", &PyTuple_Type, &inputs, &PyTuple_Type, &outputs, &PyTuple_Type,
                          &seconds, &PyTuple_Type, &sparse_objs, &PyTuple_Type, &grid_objs, &levels_obj,
                          &sentinel_abs, &discarded_net))
        return NULL;
    if (PyTuple_GET_SIZE(inputs) != A_INPUTS || PyTuple_GET_SIZE(outputs) != G_OUTPUTS ||
        PyTuple_GET_SIZE(seconds) != 2 || PyTuple_GET_SIZE(sparse_objs) != 3 * SPARSE_SETS ||
        PyTuple_GET_SIZE(grid_objs) != GRID_ITEMS) {
        PyErr_Format(PyExc_ValueError, "expected %d inputs, %d group outputs, 2 per-second buffers, %d sparse buffers"
                     " and a grid of %d items", A_INPUTS, G_OUTPUTS, 3 * SPARSE_SETS, GRID_ITEMS);
        return NULL;
    }
    View in[A_INPUTS] = {{{0}}}, out[G_OUTPUTS] = {{{0}}}, sec[2] = {{{0}}}, sp[3 * SPARSE_SETS] = {{{0}}};
    View gv[GRID_ARRAYS] = {{{0}}}, lv[1] = {{{0}}};
    PyObject *result = NULL;
    Py_ssize_t *order = NULL, *start = NULL, *timed_start = NULL;
    int64_t *scratch = NULL, *hist_count = NULL, *code_count = NULL;
    int32_t *touched = NULL;
    Selector *selector = NULL;
    Py_ssize_t rows = PyObject_Length(PyTuple_GET_ITEM(inputs, A_GROUP));
    Py_ssize_t groups = PyObject_Length(PyTuple_GET_ITEM(outputs, G_COUNTS));
    Py_ssize_t levels_n = PyObject_Length(levels_obj);
    Py_ssize_t seconds_n = PyObject_Length(PyTuple_GET_ITEM(seconds, 0)) - 1;
    Py_ssize_t capacity = PyObject_Length(PyTuple_GET_ITEM(sparse_objs, 0));
    if (rows < 0 || groups < 0 || levels_n < 0 || seconds_n < -1 || capacity < 0) goto done;
    if (seconds_n < 0) {
        PyErr_SetString(PyExc_ValueError, "the second bounds need at least one item");
        goto done;
    }
    for (int i = 0; i < A_INPUTS; i++)
        if (take_view(PyTuple_GET_ITEM(inputs, i), &in[i], INPUT_ITEMSIZE[i], rows, 0, "every input") < 0) goto done;
    for (int i = 0; i < G_OUTPUTS; i++)
        if (take_view(PyTuple_GET_ITEM(outputs, i), &out[i], 8, i == G_QUANTILES ? groups * levels_n : groups, 1,
                      "every group output") < 0)
            goto done;
    if (take_view(PyTuple_GET_ITEM(seconds, 0), &sec[0], 8, seconds_n + 1, 0, "the second bounds") < 0 ||
        take_view(PyTuple_GET_ITEM(seconds, 1), &sec[1], 8, seconds_n * levels_n, 1, "the second quantiles") < 0 ||
        take_view(levels_obj, &lv[0], 8, levels_n, 0, "levels") < 0)
        goto done;
    for (int i = 0; i < 3 * SPARSE_SETS; i++)
        if (take_view(PyTuple_GET_ITEM(sparse_objs, i), &sp[i], 8, capacity, 1, "every sparse buffer") < 0) goto done;
    for (int i = 0; i < GRID_ARRAYS; i++)
        if (take_view(PyTuple_GET_ITEM(grid_objs, i), &gv[i], 8, -1, 0, "the grid's arrays") < 0) goto done;
    Grid grid;
    grid.below = gv[GRID_BELOW].view.buf;
    grid.seg_edge = gv[GRID_SEG_EDGE].view.buf;
    grid.seg_step = gv[GRID_SEG_STEP].view.buf;
    grid.seg_index = gv[GRID_SEG_INDEX].view.buf;
    grid.segments = gv[GRID_SEG_EDGE].view.len / 8;
    grid.table_step = PyLong_AsLongLong(PyTuple_GET_ITEM(grid_objs, GRID_ARRAYS));
    grid.max_hist = PyLong_AsLongLong(PyTuple_GET_ITEM(grid_objs, GRID_ARRAYS + 1));
    grid.bin_count = PyLong_AsLongLong(PyTuple_GET_ITEM(grid_objs, GRID_ARRAYS + 2));
    if (PyErr_Occurred()) goto done;
    grid.table_limit = (gv[GRID_BELOW].view.len / 8) * grid.table_step;
    if (grid.segments < 1 || gv[GRID_SEG_STEP].view.len != gv[GRID_SEG_EDGE].view.len ||
        gv[GRID_SEG_INDEX].view.len != gv[GRID_SEG_EDGE].view.len || grid.table_step < 1 || grid.bin_count < 1 ||
        grid.bin_count > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "the histogram grid is malformed");
        goto done;
    }

    order = PyMem_RawMalloc(sizeof(Py_ssize_t) * (size_t)(rows + 1));
    start = PyMem_RawCalloc((size_t)groups + 2, sizeof(Py_ssize_t));
    timed_start = PyMem_RawMalloc(sizeof(Py_ssize_t) * ((size_t)groups + 1));
    scratch = PyMem_RawMalloc(sizeof(int64_t) * (5 * (size_t)rows + 1)); /* times, 2 sort buffers, 2 for codes */
    hist_count = PyMem_RawCalloc((size_t)grid.bin_count, sizeof(int64_t));
    code_count = PyMem_RawCalloc(2 * CODE_TABLE, sizeof(int64_t));
    touched = PyMem_RawMalloc(sizeof(int32_t) * ((size_t)grid.bin_count + 2 * CODE_TABLE));
    selector = PyMem_RawMalloc(sizeof(Selector));
    if (!order || !start || !timed_start || !scratch || !hist_count || !code_count || !touched || !selector) {
        PyErr_NoMemory();
        goto done;
    }
    memset(selector->slot, 0xff, sizeof(selector->slot)); /* every slot -1 */
    const int64_t *group = in[A_GROUP].view.buf;
    const uint32_t *real = in[A_REAL].view.buf, *size_in = in[A_SIZE_IN].view.buf, *size_out = in[A_SIZE_OUT].view.buf;
    const int64_t *connect = in[A_CONNECT].view.buf, *latency = in[A_LATENCY].view.buf;
    const int64_t *receive = in[A_RECEIVE].view.buf;
    const int32_t *send = in[A_SEND].view.buf;
    const int16_t *net = in[A_NET].view.buf, *proto = in[A_PROTO].view.buf;
    double *phase_sum[4];
    int64_t *phase_count[4];
    for (int k = 0; k < 4; k++) {
        phase_sum[k] = out[G_PHASE_SUM0 + k].view.buf;
        phase_count[k] = out[G_PHASE_COUNT0 + k].view.buf;
    }
    int64_t *counts = out[G_COUNTS].view.buf, *timed_counts = out[G_TIMED_COUNTS].view.buf;
    int64_t *size_in_sum = out[G_SIZE_IN].view.buf, *size_out_sum = out[G_SIZE_OUT].view.buf;
    double *real_sum = out[G_REAL_SUM].view.buf, *group_q = out[G_QUANTILES].view.buf;
    const int64_t *bounds = sec[0].view.buf;
    double *second_q = sec[1].view.buf;
    const double *levels = lv[0].view.buf;
    Sparse sparse[SPARSE_SETS];
    for (int s = 0; s < SPARSE_SETS; s++)
        sparse[s] = (Sparse){sp[3 * s].view.buf, sp[3 * s + 1].view.buf, sp[3 * s + 2].view.buf, 0, capacity};
    int64_t *times = scratch, *tmp_a = scratch + rows, *tmp_b = scratch + 2 * rows, *other = scratch + 3 * rows;
    Counter hist = {hist_count, touched, 0, (Py_ssize_t)grid.bin_count};
    CodeCounts nets = {{code_count, touched + grid.bin_count, 0, CODE_TABLE}, other, 0};
    CodeCounts https = {{code_count + CODE_TABLE, touched + grid.bin_count + CODE_TABLE, 0, CODE_TABLE}, other + rows, 0};
    const char *error = NULL;

    Py_BEGIN_ALLOW_THREADS;
    /* The rows in group order, each group's in row order (a stable counting sort). */
    for (Py_ssize_t i = 0; i < rows; i++) {
        int64_t g = group[i];
        if (g < 0 || g >= groups) {
            error = "a group number is outside 0..groups-1";
            break;
        }
        start[g + 2]++;
    }
    if (!error && (bounds[0] != 0 || bounds[seconds_n] != groups)) error = "the second bounds must run from 0 to groups";
    for (Py_ssize_t s = 0; !error && s < seconds_n; s++)
        if (bounds[s + 1] < bounds[s]) error = "the second bounds must not decrease";
    if (!error) {
        for (Py_ssize_t g = 0; g < groups; g++) start[g + 2] += start[g + 1];
        for (Py_ssize_t i = 0; i < rows; i++) order[start[group[i] + 1]++] = i; /* start[g + 1]: group g's cursor */
    }
    Py_ssize_t timed_at = 0;
    for (Py_ssize_t g = 0; !error && g < groups; g++) {
        Py_ssize_t from = start[g], to = start[g + 1];
        int64_t timed_n = 0, in_sum = 0, out_sum = 0, p_count[4] = {0, 0, 0, 0};
        double r_sum = 0.0, p_sum[4] = {0.0, 0.0, 0.0, 0.0};
        timed_start[g] = timed_at;
        for (Py_ssize_t k = from; k < to; k++) {
            Py_ssize_t i = order[k];
            in_sum += size_in[i];
            out_sum += size_out[i];
            codes_add(&nets, net[i]);
            codes_add(&https, proto[i]);
            int64_t r = real[i];
            if (net[i] == discarded_net && r == 0 && connect[i] == 0 && latency[i] == 0 && receive[i] == 0)
                continue; /* pandora's request never sent: counted, not timed */
            timed_n++;
            r_sum += (double)r;
            const int64_t phase[4] = {connect[i], send[i], latency[i], receive[i]};
            for (int p = 0; p < 4; p++) {
                int64_t v = phase[p];
                if (v > -sentinel_abs && v < sentinel_abs) {
                    p_sum[p] += (double)v;
                    p_count[p]++;
                }
            }
            times[timed_at++] = r;
            int64_t bin = bin_of(r, &grid);
            if (bin >= 0) counter_add(&hist, bin);
        }
        counts[g] = to - from;
        timed_counts[g] = timed_n;
        real_sum[g] = r_sum;
        size_in_sum[g] = in_sum;
        size_out_sum[g] = out_sum;
        for (int p = 0; p < 4; p++) {
            phase_sum[p][g] = p_sum[p];
            phase_count[p][g] = p_count[p];
        }
        quantiles_ms(times + timed_start[g], timed_n, levels, levels_n, group_q + g * levels_n, tmp_a, tmp_b, selector);
        if (counter_emit(&hist, g, 0, &sparse[SPARSE_HIST]) | codes_emit(&nets, g, &sparse[SPARSE_NET]) |
            codes_emit(&https, g, &sparse[SPARSE_HTTP]))
            error = "the sparse buffers are too small";
    }
    timed_start[groups] = timed_at;
    /* Each second's timed rows: its groups' side by side in `times`. */
    for (Py_ssize_t s = 0; !error && s < seconds_n; s++) {
        Py_ssize_t from = timed_start[bounds[s]], n = timed_start[bounds[s + 1]] - from;
        quantiles_ms(times + from, n, levels, levels_n, second_q + s * levels_n, tmp_a, tmp_b, selector);
    }
    Py_END_ALLOW_THREADS;
    if (error) {
        PyErr_SetString(PyExc_ValueError, error);
        goto done;
    }
    result = Py_BuildValue("(nnn)", sparse[SPARSE_HIST].n, sparse[SPARSE_NET].n, sparse[SPARSE_HTTP].n);
done:
    PyMem_RawFree(order);
    PyMem_RawFree(start);
    PyMem_RawFree(timed_start);
    PyMem_RawFree(scratch);
    PyMem_RawFree(hist_count);
    PyMem_RawFree(code_count);
    PyMem_RawFree(touched);
    PyMem_RawFree(selector);
    drop_views(in, A_INPUTS);
    drop_views(out, G_OUTPUTS);
    drop_views(sec, 2);
    drop_views(sp, 3 * SPARSE_SETS);
    drop_views(gv, GRID_ARRAYS);
    drop_views(lv, 1);
    return result;
}

static PyMethodDef methods[] = {
    {"parse_block", parse_block, METH_VARARGS, parse_block_doc},
    {"group_aggregate", group_aggregate, METH_VARARGS, group_aggregate_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "analytics._phout_fast", "The fast paths of analytics.phout and analytics.aggregate (see the C source).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__phout_fast(void) { return PyModule_Create(&module); }
