/* Hand evaluation in C over the lookup tables that libs/poker/fast/tables.py builds: per call
 * (``high``, ``omaha_high``, ``omaha_low``) and over numpy arrays (``high_batch``,
 * ``holdem_batch``, ``omaha_high_batch``, ``omaha_low_batch``), plus ``sample``, which draws Monte
 * Carlo runouts for libs/poker/equity.py.
 *
 * Nothing here generates or embeds a table: ``init_tables`` / ``init_omaha`` receive the numpy
 * arrays of ``tables()`` / ``omaha_tables()``, keep a buffer view of each (which also keeps the
 * array alive) and read them through raw pointers. The walk is the one of the pure-Python
 * ``FastEvaluator`` (libs/poker/fast/evaluator.py), so the values are identical:
 *
 *   high:        key = sum of card keys; if flush_suit[key >> 31] >= 0 the value is
 *                flush_value[rank mask of that suit], else
 *                rank_value[n][lo_index[key & LO_MASK] + hi_index[n][key >> 17 & HI_MASK]];
 *   omaha_high:  max over hole pairs x board triples of pair_triple_value[pair_index + triple_index]
 *                (flush_value of the five ranks when pair and triple share one suit);
 *   omaha_low:   low_value[hole low mask << 8 | board low mask], None for NO_LOW.
 *
 * Tables are loaded lazily: the first call that needs them calls the loader registered with
 * ``set_loader`` (``loader(False)`` for the high/low tables, ``loader(True)`` for the Omaha ones),
 * which calls ``init_tables`` / ``init_omaha``. Every index is bounds-checked, so bad input or a
 * corrupted table raises an exception and can never read outside a table. The per-call
 * functions hold the GIL throughout: no Python code runs between reading a table pointer and
 * using it. The batch functions release it around their loops (see "batch kernels").
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

/* Hand key layout: must match libs/poker/fast/tables.py (init_tables checks it). */
#define LO_BITS 17
#define HI_SHIFT 17
#define HI_BITS 14
#define SUIT_SHIFT 31
#define LO_MASK ((UINT64_C(1) << LO_BITS) - 1)
#define HI_MASK ((UINT64_C(1) << HI_BITS) - 1)
#define SUIT_FIELDS 4096 /* three bits per suit */
#define N_CARDS 52
#define MIN_HIGH 5
#define MAX_HIGH 7
#define MIN_HOLE 2
#define MAX_HOLE 6
#define MIN_BOARD 3
#define MAX_BOARD 5
#define MAX_PAIRS (MAX_HOLE * (MAX_HOLE - 1) / 2)

/* Bumped whenever the Python-facing API changes, so a stale build is not used. */
#define API_VERSION 2

enum {
    T_CARD_KEY,
    T_LO_INDEX,
    T_HI_INDEX5,
    T_HI_INDEX6,
    T_HI_INDEX7,
    T_RANK_VALUE5,
    T_RANK_VALUE6,
    T_RANK_VALUE7,
    T_FLUSH_SUIT,
    T_FLUSH_VALUE,
    T_LOW_BIT,
    T_LOW_VALUE,
    N_BASE_TABLES,
    T_PAIR_INDEX = N_BASE_TABLES,
    T_TRIPLE_INDEX,
    T_PAIR_TRIPLE_VALUE,
    N_TABLES
};

typedef struct {
    const char *name;
    Py_ssize_t itemsize;
    Py_ssize_t length; /* -1: any non-empty length */
} TableSpec;

static const TableSpec SPECS[N_TABLES] = {
    [T_CARD_KEY] = {"card_key", 8, N_CARDS},
    [T_LO_INDEX] = {"lo_index", 4, 1 << LO_BITS},
    [T_HI_INDEX5] = {"hi_index[5]", 4, 1 << HI_BITS},
    [T_HI_INDEX6] = {"hi_index[6]", 4, 1 << HI_BITS},
    [T_HI_INDEX7] = {"hi_index[7]", 4, 1 << HI_BITS},
    [T_RANK_VALUE5] = {"rank_value[5]", 4, -1},
    [T_RANK_VALUE6] = {"rank_value[6]", 4, -1},
    [T_RANK_VALUE7] = {"rank_value[7]", 4, -1},
    [T_FLUSH_SUIT] = {"flush_suit", 1, SUIT_FIELDS},
    [T_FLUSH_VALUE] = {"flush_value", 4, 1 << 13},
    [T_LOW_BIT] = {"low_bit", 4, N_CARDS},
    [T_LOW_VALUE] = {"low_value", 4, 1 << 16},
    [T_PAIR_INDEX] = {"pair_index", 4, N_CARDS * N_CARDS},
    [T_TRIPLE_INDEX] = {"triple_index", 4, 13 * 13 * 13},
    [T_PAIR_TRIPLE_VALUE] = {"pair_triple_value", 4, -1},
};

static Py_buffer views[N_TABLES];
static int held[N_TABLES];
static int base_ready = 0;
static int omaha_ready = 0;
static int32_t no_low = 0;
static PyObject *loader = NULL;

/* Raw pointers into the views above (valid while base_ready / omaha_ready). */
static const int64_t *card_key;
static const int32_t *lo_index;
static const int32_t *hi_index[3];
static const int32_t *rank_value[3];
static Py_ssize_t rank_value_len[3];
static const int8_t *flush_suit;
static const int32_t *flush_value;
static const int32_t *low_bit;
static const int32_t *low_value;
static const int32_t *pair_index;
static const int32_t *triple_index;
static const int32_t *pair_triple_value;
static Py_ssize_t pair_triple_len;

/* ---- tables ---------------------------------------------------------------------------- */

static int
acquire(PyObject *obj, int which, Py_buffer *out)
{
    const TableSpec *spec = &SPECS[which];
    if (PyObject_GetBuffer(obj, out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous integer array, got %.100s",
                     spec->name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *format = out->format != NULL ? out->format : "B";
    if (*format == '@' || *format == '=' || (PY_LITTLE_ENDIAN && *format == '<')) {
        format++;
    }
    int signed_int = format[0] != '\0' && format[1] == '\0' && strchr("bhilq", format[0]) != NULL;
    if (out->ndim != 1 || !signed_int || out->itemsize != spec->itemsize
        || out->shape[0] < 1 || (spec->length >= 0 && out->shape[0] != spec->length)) {
        PyErr_Format(PyExc_ValueError,
                     "%s: expected a 1-d array of %zd-byte signed integers%s, got format %.20s, "
                     "%d dimension(s), %zd items",
                     spec->name, spec->itemsize, spec->length >= 0 ? " of the table's size" : "",
                     out->format != NULL ? out->format : "B", out->ndim,
                     out->ndim >= 1 ? out->shape[0] : (Py_ssize_t)0);
        PyBuffer_Release(out);
        return -1;
    }
    return 0;
}

/* Views replaced while a batch kernel runs without the GIL (see "batch kernels"). */
static Py_ssize_t busy = 0;
static Py_buffer *retired = NULL;
static Py_ssize_t n_retired = 0;
static Py_ssize_t cap_retired = 0;

static int
reserve_retired(Py_ssize_t extra)
{
    if (n_retired + extra <= cap_retired) {
        return 0;
    }
    Py_ssize_t cap = (n_retired + extra) * 2;
    Py_buffer *grown = PyMem_Realloc(retired, (size_t)cap * sizeof(Py_buffer));
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    retired = grown;
    cap_retired = cap;
    return 0;
}

/* A view replaced by init_tables / init_omaha: released now, or parked while a kernel runs.
 * install() reserved room for it beforehand. */
static void
drop_view(Py_buffer *view)
{
    if (busy > 0 && n_retired < cap_retired) {
        retired[n_retired++] = *view;
    }
    else {
        PyBuffer_Release(view);
    }
}

/* Takes views of objs[i] for tables first..first+count-1; all or nothing. */
static int
install(PyObject *const *objs, int first, int count)
{
    Py_buffer fresh[N_TABLES];
    if (busy > 0 && reserve_retired(count) < 0) {
        return -1;
    }
    for (int i = 0; i < count; i++) {
        if (acquire(objs[i], first + i, &fresh[i]) < 0) {
            while (--i >= 0) {
                PyBuffer_Release(&fresh[i]);
            }
            return -1;
        }
    }
    for (int i = 0; i < count; i++) {
        if (held[first + i]) {
            drop_view(&views[first + i]);
        }
        views[first + i] = fresh[i];
        held[first + i] = 1;
    }
    return 0;
}

static PyObject *
init_tables(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"card_key",   "lo_index",  "hi_index", "rank_value",
                               "flush_suit", "flush_value", "low_bit", "low_value",
                               "no_low",     "layout",     NULL};
    PyObject *objs[N_BASE_TABLES];
    long value_no_low;
    int lo_bits, hi_shift, hi_bits, suit_shift;
    if (!PyArg_ParseTupleAndKeywords(
            args, kwargs, "OO(OOO)(OOO)OOOOl(iiii):init_tables", keywords, &objs[T_CARD_KEY],
            &objs[T_LO_INDEX], &objs[T_HI_INDEX5], &objs[T_HI_INDEX6], &objs[T_HI_INDEX7],
            &objs[T_RANK_VALUE5], &objs[T_RANK_VALUE6], &objs[T_RANK_VALUE7], &objs[T_FLUSH_SUIT],
            &objs[T_FLUSH_VALUE], &objs[T_LOW_BIT], &objs[T_LOW_VALUE], &value_no_low, &lo_bits,
            &hi_shift, &hi_bits, &suit_shift)) {
        return NULL;
    }
    if (lo_bits != LO_BITS || hi_shift != HI_SHIFT || hi_bits != HI_BITS
        || suit_shift != SUIT_SHIFT) {
        PyErr_Format(PyExc_ValueError,
                     "hand key layout (%d, %d, %d, %d) differs from the one compiled in "
                     "(%d, %d, %d, %d): rebuild libs.poker.fast._native",
                     lo_bits, hi_shift, hi_bits, suit_shift, LO_BITS, HI_SHIFT, HI_BITS,
                     SUIT_SHIFT);
        return NULL;
    }
    if (value_no_low < INT32_MIN || value_no_low > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "no_low does not fit in 32 bits");
        return NULL;
    }
    base_ready = 0;
    if (install(objs, 0, N_BASE_TABLES) < 0) {
        /* The previous tables, if any, are still held and intact. */
        base_ready = held[T_CARD_KEY];
        return NULL;
    }
    card_key = (const int64_t *)views[T_CARD_KEY].buf;
    lo_index = (const int32_t *)views[T_LO_INDEX].buf;
    for (int i = 0; i < 3; i++) {
        hi_index[i] = (const int32_t *)views[T_HI_INDEX5 + i].buf;
        rank_value[i] = (const int32_t *)views[T_RANK_VALUE5 + i].buf;
        rank_value_len[i] = views[T_RANK_VALUE5 + i].shape[0];
    }
    flush_suit = (const int8_t *)views[T_FLUSH_SUIT].buf;
    flush_value = (const int32_t *)views[T_FLUSH_VALUE].buf;
    low_bit = (const int32_t *)views[T_LOW_BIT].buf;
    low_value = (const int32_t *)views[T_LOW_VALUE].buf;
    no_low = (int32_t)value_no_low;
    base_ready = 1;
    Py_RETURN_NONE;
}

static PyObject *
init_omaha(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"pair_index", "triple_index", "pair_triple_value", NULL};
    PyObject *objs[3];
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO:init_omaha", keywords, &objs[0], &objs[1],
                                     &objs[2])) {
        return NULL;
    }
    omaha_ready = 0;
    if (install(objs, T_PAIR_INDEX, 3) < 0) {
        omaha_ready = held[T_PAIR_INDEX];
        return NULL;
    }
    pair_index = (const int32_t *)views[T_PAIR_INDEX].buf;
    triple_index = (const int32_t *)views[T_TRIPLE_INDEX].buf;
    pair_triple_value = (const int32_t *)views[T_PAIR_TRIPLE_VALUE].buf;
    pair_triple_len = views[T_PAIR_TRIPLE_VALUE].shape[0];
    omaha_ready = 1;
    Py_RETURN_NONE;
}

static PyObject *
set_loader(PyObject *module, PyObject *fn)
{
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "set_loader() expects a callable or None");
        return NULL;
    }
    Py_XSETREF(loader, fn == Py_None ? NULL : Py_NewRef(fn));
    Py_RETURN_NONE;
}

static PyObject *
ready(PyObject *module, PyObject *unused)
{
    return Py_BuildValue("(OO)", base_ready ? Py_True : Py_False,
                         omaha_ready ? Py_True : Py_False);
}

static int
call_loader(int omaha)
{
    if (loader == NULL) {
        PyErr_Format(PyExc_RuntimeError,
                     "libs.poker.fast._native: no %s tables; call %s() or set_loader() first",
                     omaha ? "Omaha" : "hand", omaha ? "init_omaha" : "init_tables");
        return -1;
    }
    PyObject *fn = Py_NewRef(loader); /* the loader may replace itself */
    PyObject *result = PyObject_CallOneArg(fn, omaha ? Py_True : Py_False);
    Py_DECREF(fn);
    if (result == NULL) {
        return -1;
    }
    Py_DECREF(result);
    if (!(omaha ? omaha_ready : base_ready)) {
        PyErr_Format(PyExc_RuntimeError, "libs.poker.fast._native: the loader did not call %s()",
                     omaha ? "init_omaha" : "init_tables");
        return -1;
    }
    return 0;
}

static int
ensure_base(void)
{
    return base_ready ? 0 : call_loader(0);
}

static int
ensure_omaha(void)
{
    if (!base_ready && call_loader(0) < 0) {
        return -1;
    }
    return omaha_ready ? 0 : call_loader(1);
}

static PyObject *
table_error(const char *name)
{
    PyErr_Format(PyExc_RuntimeError, "libs.poker.fast._native: index outside %s (corrupted table?)",
                 name);
    return NULL;
}

/* ---- arguments ------------------------------------------------------------------------- */

/* Positional or keyword arguments of a METH_FASTCALL | METH_KEYWORDS function, all required. */
static int
parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
           const char *const *names, Py_ssize_t count, PyObject **out)
{
    if (nargs > count) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd positional argument%s but %zd were given",
                     fname, count, count == 1 ? "" : "s", nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        out[i] = i < nargs ? args[i] : NULL;
    }
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        Py_ssize_t j = 0;
        while (j < count && PyUnicode_CompareWithASCIIString(name, names[j]) != 0) {
            j++;
        }
        if (j == count) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname,
                         name);
            return -1;
        }
        if (out[j] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[j]);
            return -1;
        }
        out[j] = args[nargs + k];
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (out[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname, names[i]);
            return -1;
        }
    }
    return 0;
}

static int
bad_count(const char *what, Py_ssize_t n, Py_ssize_t lo, Py_ssize_t hi)
{
    PyErr_Format(PyExc_ValueError, "%s: expected %zd to %zd cards, got %zd", what, lo, hi, n);
    return -1;
}

/* Card c (an exact int's value, or -1 after a failed conversion) into out; checks the range and
 * repeats (seen: one bit per card over every argument of the call). */
static int
take_card(const char *what, long c, uint64_t *seen, int *out)
{
    if (c < 0 || c >= N_CARDS) {
        if (c == -1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
                return -1;
            }
            PyErr_Clear();
        }
        PyErr_Format(PyExc_ValueError, "%s: cards are ints 0..51, got one out of range", what);
        return -1;
    }
    uint64_t bit = UINT64_C(1) << c;
    if (*seen & bit) {
        PyErr_Format(PyExc_ValueError, "%s: card %ld appears more than once", what, c);
        return -1;
    }
    *seen |= bit;
    *out = (int)c;
    return 0;
}

/* Reads lo..hi cards (ints 0..51, no repeats) from a list or tuple of ints, else from any
 * iterable of objects with __index__; returns their number or -1 with an exception set. */
static Py_ssize_t
read_cards(PyObject *seq, int *out, Py_ssize_t lo, Py_ssize_t hi, const char *what,
           uint64_t *seen)
{
    const uint64_t seen_before = *seen;
    if (PyList_CheckExact(seq) || PyTuple_CheckExact(seq)) {
        /* Exact ints only: converting them runs no Python code, so the list cannot change. */
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        PyObject **items = PySequence_Fast_ITEMS(seq);
        if (n < lo || n > hi) {
            return bad_count(what, n, lo, hi);
        }
        Py_ssize_t i = 0;
        for (; i < n && PyLong_CheckExact(items[i]); i++) {
            if (take_card(what, PyLong_AsLong(items[i]), seen, &out[i]) < 0) {
                return -1;
            }
        }
        if (i == n) {
            return n;
        }
        *seen = seen_before;
    }
    /* Anything else (numpy ints, other sequences): through a tuple, which holds the items. */
    PyObject *tuple = PySequence_Tuple(seq);
    if (tuple == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Format(PyExc_TypeError, "%s: expected a sequence of ints (cards 0..51), got %.100s",
                         what, Py_TYPE(seq)->tp_name);
        }
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    if (n < lo || n > hi) {
        Py_DECREF(tuple);
        return bad_count(what, n, lo, hi);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(tuple, i);
        PyObject *index = PyNumber_Index(item);
        if (index == NULL) {
            Py_DECREF(tuple);
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Format(PyExc_TypeError, "%s: cards must be ints, got %.100s", what,
                             Py_TYPE(item)->tp_name);
            }
            return -1;
        }
        long c = PyLong_AsLong(index);
        Py_DECREF(index);
        if (take_card(what, c, seen, &out[i]) < 0) {
            Py_DECREF(tuple);
            return -1;
        }
    }
    Py_DECREF(tuple);
    return n;
}

/* ---- evaluation ------------------------------------------------------------------------ */

static PyObject *
high(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"cards"};
    PyObject *seq;
    if (kwnames == NULL && nargs == 1) {
        seq = args[0];
    }
    else if (parse_args("high", args, nargs, kwnames, names, 1, &seq) < 0) {
        return NULL;
    }
    int cards[MAX_HIGH];
    uint64_t seen = 0;
    Py_ssize_t n = read_cards(seq, cards, MIN_HIGH, MAX_HIGH, "high", &seen);
    if (n < 0 || ensure_base() < 0) {
        return NULL;
    }
    uint64_t key = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        key += (uint64_t)card_key[cards[i]];
    }
    int suit = flush_suit[(key >> SUIT_SHIFT) & (SUIT_FIELDS - 1)];
    if (suit >= 0) {
        /* With at most seven cards a flush beats every other hand of the same cards. */
        unsigned mask = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            if ((cards[i] & 3) == suit) {
                mask |= 1u << (cards[i] >> 2);
            }
        }
        return PyLong_FromLong(flush_value[mask]); /* mask < 2 ** 13: inside the table */
    }
    Py_ssize_t size = n - MIN_HIGH;
    int64_t index = (int64_t)lo_index[key & LO_MASK]
                    + hi_index[size][(key >> HI_SHIFT) & HI_MASK];
    if (index < 0 || index >= rank_value_len[size]) {
        return table_error("rank_value");
    }
    return PyLong_FromLong(rank_value[size][index]);
}

static int
read_omaha(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
           int *hole, Py_ssize_t *nh, int *board, Py_ssize_t *nb)
{
    static const char *const names[] = {"hole", "board"};
    PyObject *objs[2];
    if (kwnames == NULL && nargs == 2) {
        objs[0] = args[0];
        objs[1] = args[1];
    }
    else if (parse_args(fname, args, nargs, kwnames, names, 2, objs) < 0) {
        return -1;
    }
    uint64_t seen = 0;
    *nh = read_cards(objs[0], hole, MIN_HOLE, MAX_HOLE, "hole", &seen);
    if (*nh < 0) {
        return -1;
    }
    *nb = read_cards(objs[1], board, MIN_BOARD, MAX_BOARD, "board", &seen);
    return *nb < 0 ? -1 : 0;
}

static PyObject *
omaha_high(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    int hole[MAX_HOLE], board[MAX_BOARD];
    Py_ssize_t nh, nb;
    if (read_omaha("omaha_high", args, nargs, kwnames, hole, &nh, board, &nb) < 0
        || ensure_omaha() < 0) {
        return NULL;
    }
    /* Hole pairs: rank multiset offset, suit when suited (else -1), rank mask. */
    int32_t pair_offset[MAX_PAIRS];
    int pair_suit[MAX_PAIRS];
    unsigned pair_mask[MAX_PAIRS];
    int pairs = 0;
    for (Py_ssize_t i = 0; i < nh; i++) {
        for (Py_ssize_t j = i + 1; j < nh; j++) {
            int a = hole[i], b = hole[j];
            pair_offset[pairs] = pair_index[a * N_CARDS + b];
            pair_suit[pairs] = (a & 3) == (b & 3) ? (a & 3) : -1;
            pair_mask[pairs] = 1u << (a >> 2) | 1u << (b >> 2);
            pairs++;
        }
    }
    int32_t best = -1;
    for (Py_ssize_t x = 0; x < nb; x++) {
        for (Py_ssize_t y = x + 1; y < nb; y++) {
            for (Py_ssize_t z = y + 1; z < nb; z++) {
                int cx = board[x], cy = board[y], cz = board[z];
                int64_t triple = triple_index[(cx >> 2) * 169 + (cy >> 2) * 13 + (cz >> 2)];
                /* -2: never equal to a pair's suit, suited or not */
                int suit = (cx & 3) == (cy & 3) && (cy & 3) == (cz & 3) ? (cx & 3) : -2;
                unsigned mask = 1u << (cx >> 2) | 1u << (cy >> 2) | 1u << (cz >> 2);
                for (int p = 0; p < pairs; p++) {
                    int32_t value;
                    if (pair_suit[p] == suit) {
                        value = flush_value[pair_mask[p] | mask];
                    }
                    else {
                        int64_t index = pair_offset[p] + triple;
                        if (index < 0 || index >= pair_triple_len) {
                            return table_error("pair_triple_value");
                        }
                        value = pair_triple_value[index];
                    }
                    if (value > best) {
                        best = value;
                    }
                }
            }
        }
    }
    return PyLong_FromLong(best);
}

static PyObject *
omaha_low(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    int hole[MAX_HOLE], board[MAX_BOARD];
    Py_ssize_t nh, nb;
    if (read_omaha("omaha_low", args, nargs, kwnames, hole, &nh, board, &nb) < 0
        || ensure_base() < 0) {
        return NULL;
    }
    uint32_t hole_mask = 0, board_mask = 0;
    for (Py_ssize_t i = 0; i < nh; i++) {
        hole_mask |= (uint32_t)low_bit[hole[i]];
    }
    for (Py_ssize_t i = 0; i < nb; i++) {
        board_mask |= (uint32_t)low_bit[board[i]];
    }
    int32_t value = low_value[(hole_mask & 0xFF) << 8 | (board_mask & 0xFF)];
    if (value == no_low) {
        Py_RETURN_NONE;
    }
    return PyLong_FromLong(value);
}

/* ---- batch kernels ----------------------------------------------------------------------
 *
 * The batch functions take numpy arrays (any C-contiguous buffer of 1, 2, 4 or 8-byte integers)
 * and write into an int32 / uint8 array the caller allocates, so this file needs no numpy
 * headers. Every card is read once into a local, range-checked (0..51) and checked for repeats
 * within its hand before it indexes anything; a bad row raises ValueError naming the row.
 *
 * The kernels run without the GIL. They work on a snapshot of the table pointers (Tabs) taken
 * with the GIL held, and while any kernel runs (``busy`` > 0) init_tables / init_omaha do not
 * release the views they replace but park them in ``retired``, released when the last kernel
 * ends: a kernel never reads a freed table. Input arrays are held by their buffer views (numpy
 * refuses to resize an array with exported buffers); if another thread writes into one while a
 * kernel reads it, the values may be stale but every index is still checked. */

#define MAX_PLAYERS 32

typedef struct {
    const int64_t *card_key;
    const int32_t *lo_index;
    const int32_t *hi_index[3];
    const int32_t *rank_value[3];
    uint64_t rank_value_len[3];
    const int8_t *flush_suit;
    const int32_t *flush_value;
    const int32_t *low_bit;
    const int32_t *low_value;
    const int32_t *pair_index;
    const int32_t *triple_index;
    const int32_t *pair_triple_value;
    uint64_t pair_triple_len;
} Tabs;

/* With the GIL held: the tables a kernel will read; -1 (RuntimeError) if they are not loaded
 * (callers load them first; this only guards against a failed reload in between). */
static int
enter_kernel(Tabs *t, int omaha)
{
    if (!base_ready || (omaha && !omaha_ready)) {
        PyErr_SetString(PyExc_RuntimeError, "libs.poker.fast._native: tables not loaded");
        return -1;
    }
    t->card_key = card_key;
    t->lo_index = lo_index;
    for (int i = 0; i < 3; i++) {
        t->hi_index[i] = hi_index[i];
        t->rank_value[i] = rank_value[i];
        t->rank_value_len[i] = (uint64_t)rank_value_len[i];
    }
    t->flush_suit = flush_suit;
    t->flush_value = flush_value;
    t->low_bit = low_bit;
    t->low_value = low_value;
    t->pair_index = omaha_ready ? pair_index : NULL;
    t->triple_index = omaha_ready ? triple_index : NULL;
    t->pair_triple_value = omaha_ready ? pair_triple_value : NULL;
    t->pair_triple_len = omaha_ready ? (uint64_t)pair_triple_len : 0;
    busy++;
    return 0;
}

/* With the GIL held again. */
static void
leave_kernel(void)
{
    if (--busy == 0) {
        while (n_retired > 0) {
            PyBuffer_Release(&retired[--n_retired]);
        }
    }
}

/* Outcome of a kernel: the first bad row (rows are scanned in order). */
enum { K_OK, K_RANGE, K_REPEAT, K_TABLE };

typedef struct {
    int kind;
    Py_ssize_t row;
} Status;

static PyObject *
kernel_error(const char *fname, Status st)
{
    switch (st.kind) {
    case K_RANGE:
        PyErr_Format(PyExc_ValueError, "%s: row %zd has a card outside 0..51", fname, st.row);
        break;
    case K_REPEAT:
        PyErr_Format(PyExc_ValueError, "%s: row %zd has a card more than once", fname, st.row);
        break;
    default:
        PyErr_Format(PyExc_RuntimeError,
                     "libs.poker.fast._native: %s: index outside a table at row %zd "
                     "(corrupted table?)",
                     fname, st.row);
    }
    return NULL;
}

/* The element type of a buffer format: 'i' (signed int), 'u' (unsigned int) or 0. */
static char
int_kind(const char *format)
{
    if (format == NULL) {
        return 'u';
    }
    if (*format == '@' || *format == '=' || (PY_LITTLE_ENDIAN && *format == '<')
        || (!PY_LITTLE_ENDIAN && (*format == '>' || *format == '!'))) {
        format++;
    }
    if (format[0] == '\0' || format[1] != '\0') {
        return 0;
    }
    if (strchr("bhilqn", format[0]) != NULL) {
        return 'i';
    }
    if (strchr("BHILQN", format[0]) != NULL) {
        return 'u';
    }
    return 0;
}

/* A C-contiguous array of cards [rows, cols] (ndim 2) or [cols] (ndim 1, rows = 1). */
typedef struct {
    Py_buffer view;
    const unsigned char *buf;
    Py_ssize_t rows, cols, itemsize;
} CardArray;

static int
get_cards(PyObject *obj, const char *what, int ndim, Py_ssize_t min_cols, Py_ssize_t max_cols,
          CardArray *out)
{
    if (PyObject_GetBuffer(obj, &out->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous integer array, got %.100s",
                     what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_buffer *v = &out->view;
    Py_ssize_t size = v->itemsize;
    if (int_kind(v->format) == 0 || !(size == 1 || size == 2 || size == 4 || size == 8)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: cards must be 1, 2, 4 or 8-byte integers, got format %.20s", what,
                     v->format != NULL ? v->format : "B");
        PyBuffer_Release(v);
        return -1;
    }
    if (v->ndim != ndim) {
        PyErr_Format(PyExc_ValueError, "%s: expected %d dimension(s), got %d", what, ndim,
                     v->ndim);
        PyBuffer_Release(v);
        return -1;
    }
    out->rows = ndim == 2 ? v->shape[0] : 1;
    out->cols = v->shape[ndim - 1];
    if (out->cols < min_cols || out->cols > max_cols) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd to %zd cards per row, got %zd", what,
                     min_cols, max_cols, out->cols);
        PyBuffer_Release(v);
        return -1;
    }
    out->buf = (const unsigned char *)v->buf;
    out->itemsize = size;
    return 0;
}

/* A writable C-contiguous array of int32 (or uint8 with ``byte``) of exactly this shape. */
static int
get_out(PyObject *obj, const char *what, int byte, int ndim, const Py_ssize_t *shape,
        Py_buffer *out)
{
    if (PyObject_GetBuffer(obj, out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyErr_Format(PyExc_TypeError, "%s: expected a writable C-contiguous array, got %.100s",
                     what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    char kind = int_kind(out->format);
    int ok = byte ? (kind == 'u' && out->itemsize == 1) : (kind == 'i' && out->itemsize == 4);
    ok = ok && out->ndim == ndim;
    for (int i = 0; ok && i < ndim; i++) {
        ok = out->shape[i] == shape[i];
    }
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: expected a %s array of shape (%zd%s%zd), got format "
                     "%.20s with %d dimension(s)",
                     what, byte ? "uint8" : "int32", shape[0], ndim > 1 ? ", " : "",
                     ndim > 1 ? shape[1] : (Py_ssize_t)0, out->format != NULL ? out->format : "B",
                     out->ndim);
        PyBuffer_Release(out);
        return -1;
    }
    return 0;
}

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define ALWAYS_INLINE static __forceinline
#else
#define ALWAYS_INLINE static inline
#endif

/* Card j of a row as an unsigned value; 8-byte values too large for 32 bits read as 255. The
 * kernels below are written once and instantiated per item size (a constant once inlined), so
 * this is a single load. */
ALWAYS_INLINE unsigned
load_card(const unsigned char *row, Py_ssize_t j, Py_ssize_t itemsize)
{
    switch (itemsize) {
    case 1:
        return row[j];
    case 2: {
        uint16_t v;
        memcpy(&v, row + 2 * j, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, row + 4 * j, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, row + 8 * j, 8);
        return v < N_CARDS ? (unsigned)v : 255u;
    }
    }
}

/* Reads n cards of a row into c: K_OK when all are in 0..51 and distinct, also from the cards
 * in *seen (which gets them), else K_RANGE or K_REPEAT. Negative signed cards read as large
 * unsigned ones. One test per row; c is only used on K_OK. */
ALWAYS_INLINE int
read_row(const unsigned char *row, Py_ssize_t n, Py_ssize_t itemsize, unsigned *c, uint64_t *seen)
{
    unsigned out_of_range = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        c[j] = load_card(row, j, itemsize);
        out_of_range |= c[j] >= N_CARDS;
    }
    if (out_of_range) {
        return K_RANGE;
    }
    uint64_t mask = *seen, repeated = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        const uint64_t bit = UINT64_C(1) << c[j];
        repeated |= mask & bit;
        mask |= bit;
    }
    if (repeated) {
        return K_REPEAT;
    }
    *seen = mask;
    return K_OK;
}

/* Calls body(size) with the item size a constant: one specialised copy of the code per size. */
#define BY_ITEMSIZE(size, call)                                                                  \
    switch (size) {                                                                              \
    case 1:                                                                                      \
        call(1);                                                                                 \
        break;                                                                                   \
    case 2:                                                                                      \
        call(2);                                                                                 \
        break;                                                                                   \
    case 4:                                                                                      \
        call(4);                                                                                 \
        break;                                                                                   \
    default:                                                                                     \
        call(8);                                                                                 \
    }

/* High value of n distinct valid cards (sum of keys ``key`` given); -1 on a table overflow. */
ALWAYS_INLINE int32_t
high_of(const Tabs *t, const unsigned *c, int n, uint64_t key)
{
    int suit = t->flush_suit[(key >> SUIT_SHIFT) & (SUIT_FIELDS - 1)];
    if (suit >= 0) {
        /* With at most seven cards a flush beats every other hand of the same cards. */
        unsigned mask = 0;
        for (int i = 0; i < n; i++) {
            mask |= (unsigned)((c[i] & 3) == (unsigned)suit) << (c[i] >> 2);
        }
        return t->flush_value[mask];
    }
    int size = n - MIN_HIGH;
    uint64_t index = (uint64_t)((int64_t)t->lo_index[key & LO_MASK]
                                + t->hi_index[size][(key >> HI_SHIFT) & HI_MASK]);
    if (index >= t->rank_value_len[size]) {
        return -1;
    }
    return t->rank_value[size][index];
}

ALWAYS_INLINE Status
high_rows(const Tabs *t, const unsigned char *buf, Py_ssize_t rows, int n, Py_ssize_t size,
          int32_t *out)
{
    Status st = {K_OK, 0};
    for (Py_ssize_t r = 0; r < rows; r++) {
        unsigned c[MAX_HIGH];
        uint64_t seen = 0;
        int kind = read_row(buf + r * n * size, n, size, c, &seen);
        if (kind != K_OK) {
            st.kind = kind;
            st.row = r;
            return st;
        }
        uint64_t key = 0;
        for (int j = 0; j < n; j++) {
            key += (uint64_t)t->card_key[c[j]];
        }
        int32_t value = high_of(t, c, n, key);
        if (value < 0) {
            st.kind = K_TABLE;
            st.row = r;
            return st;
        }
        out[r] = value;
    }
    return st;
}

static Status
high_kernel(const Tabs *t, const CardArray *a, int32_t *out)
{
    Status st = {K_OK, 0};
#define HIGH_ROWS(n, size) st = high_rows(t, a->buf, a->rows, n, size, out)
#define HIGH_5(size) HIGH_ROWS(5, size)
#define HIGH_6(size) HIGH_ROWS(6, size)
#define HIGH_7(size) HIGH_ROWS(7, size)
    switch (a->cols) {
    case 5:
        BY_ITEMSIZE(a->itemsize, HIGH_5);
        break;
    case 6:
        BY_ITEMSIZE(a->itemsize, HIGH_6);
        break;
    default:
        BY_ITEMSIZE(a->itemsize, HIGH_7);
    }
#undef HIGH_ROWS
#undef HIGH_5
#undef HIGH_6
#undef HIGH_7
    return st;
}

static PyObject *
high_batch(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "high_batch() takes 2 arguments (cards, out), got %zd",
                     nargs);
        return NULL;
    }
    if (ensure_base() < 0) {
        return NULL;
    }
    CardArray cards;
    Py_buffer out;
    if (get_cards(args[0], "high_batch: cards", 2, MIN_HIGH, MAX_HIGH, &cards) < 0) {
        return NULL;
    }
    if (get_out(args[1], "high_batch: out", 0, 1, &cards.rows, &out) < 0) {
        PyBuffer_Release(&cards.view);
        return NULL;
    }
    Tabs t;
    Status st = {K_OK, 0};
    int entered = enter_kernel(&t, 0) == 0;
    if (entered) {
        Py_BEGIN_ALLOW_THREADS
        st = high_kernel(&t, &cards, (int32_t *)out.buf);
        Py_END_ALLOW_THREADS
        leave_kernel();
    }
    PyBuffer_Release(&cards.view);
    PyBuffer_Release(&out);
    if (!entered) {
        return NULL;
    }
    if (st.kind != K_OK) {
        return kernel_error("high_batch", st);
    }
    Py_RETURN_NONE;
}

/* A player's hole cards in holdem_kernel: one row for every board (``shared``), read once. */
typedef struct {
    const unsigned char *buf;
    Py_ssize_t itemsize;
    int shared;
    unsigned c[2];
    uint64_t key, mask;
} Hole;

ALWAYS_INLINE Status
holdem_rows(const Tabs *t, Hole *holes, Py_ssize_t players, const unsigned char *board,
            Py_ssize_t n, Py_ssize_t bsize, int32_t *out)
{
    Status st = {K_OK, 0};
    for (Py_ssize_t r = 0; r < n; r++) {
        unsigned c[7];
        uint64_t board_seen = 0;
        int kind = read_row(board + r * 5 * bsize, 5, bsize, c + 2, &board_seen);
        if (kind != K_OK) {
            st.kind = kind;
            st.row = r;
            return st;
        }
        uint64_t board_key = 0;
        for (int j = 2; j < 7; j++) {
            board_key += (uint64_t)t->card_key[c[j]];
        }
        for (Py_ssize_t p = 0; p < players; p++) {
            const Hole *h = &holes[p];
            uint64_t key;
            if (h->shared) {
                if (board_seen & h->mask) {
                    st.kind = K_REPEAT;
                    st.row = r;
                    return st;
                }
                c[0] = h->c[0];
                c[1] = h->c[1];
                key = board_key + h->key;
            }
            else {
                uint64_t seen = board_seen;
                kind = read_row(h->buf + r * 2 * h->itemsize, 2, h->itemsize, c, &seen);
                if (kind != K_OK) {
                    st.kind = kind;
                    st.row = r;
                    return st;
                }
                key = board_key + (uint64_t)t->card_key[c[0]] + (uint64_t)t->card_key[c[1]];
            }
            int32_t value = high_of(t, c, 7, key);
            if (value < 0) {
                st.kind = K_TABLE;
                st.row = r;
                return st;
            }
            out[p * n + r] = value;
        }
    }
    return st;
}

static Status
holdem_kernel(const Tabs *t, const CardArray *holes, Py_ssize_t players, const CardArray *board,
              int32_t *out)
{
    Status st = {K_OK, 0};
    Hole h[MAX_PLAYERS];
    for (Py_ssize_t p = 0; p < players; p++) {
        h[p].buf = holes[p].buf;
        h[p].itemsize = holes[p].itemsize;
        h[p].shared = holes[p].rows == 1;
        h[p].mask = 0;
        if (h[p].shared && board->rows > 0) {
            int kind = read_row(h[p].buf, 2, h[p].itemsize, h[p].c, &h[p].mask);
            if (kind != K_OK) {
                st.kind = kind;
                return st;
            }
            h[p].key = (uint64_t)t->card_key[h[p].c[0]] + (uint64_t)t->card_key[h[p].c[1]];
        }
    }
#define HOLDEM_ROWS(size) st = holdem_rows(t, h, players, board->buf, board->rows, size, out)
    BY_ITEMSIZE(board->itemsize, HOLDEM_ROWS);
#undef HOLDEM_ROWS
    return st;
}

static PyObject *
holdem_batch(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError,
                     "holdem_batch() takes 3 arguments (holes, board, out), got %zd", nargs);
        return NULL;
    }
    if (ensure_base() < 0) {
        return NULL;
    }
    /* A tuple: it cannot change while the buffers are taken, and holds the arrays. */
    PyObject *seq = PySequence_Tuple(args[0]);
    if (seq == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_SetString(PyExc_TypeError, "holdem_batch: holes must be a sequence of arrays");
        }
        return NULL;
    }
    Py_ssize_t players = PyTuple_GET_SIZE(seq);
    if (players < 1 || players > MAX_PLAYERS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "holdem_batch: expected 1 to %d players, got %zd",
                     MAX_PLAYERS, players);
        return NULL;
    }
    CardArray board, holes[MAX_PLAYERS];
    Py_buffer out;
    Py_ssize_t got = 0;
    PyObject *result = NULL;
    if (get_cards(args[1], "holdem_batch: board", 2, 5, 5, &board) < 0) {
        Py_DECREF(seq);
        return NULL;
    }
    for (; got < players; got++) {
        if (get_cards(PyTuple_GET_ITEM(seq, got), "holdem_batch: hole", 2, 2, 2,
                      &holes[got]) < 0) {
            goto done;
        }
        if (holes[got].rows != 1 && holes[got].rows != board.rows) {
            PyErr_Format(PyExc_ValueError,
                         "holdem_batch: hole %zd has %zd rows, the board %zd (or give one row)",
                         got, holes[got].rows, board.rows);
            PyBuffer_Release(&holes[got].view);
            goto done;
        }
    }
    Py_ssize_t shape[2] = {players, board.rows};
    if (get_out(args[2], "holdem_batch: out", 0, 2, shape, &out) < 0) {
        goto done;
    }
    Tabs t;
    Status st = {K_OK, 0};
    if (enter_kernel(&t, 0) == 0) {
        Py_BEGIN_ALLOW_THREADS
        st = holdem_kernel(&t, holes, players, &board, (int32_t *)out.buf);
        Py_END_ALLOW_THREADS
        leave_kernel();
        if (st.kind != K_OK) {
            kernel_error("holdem_batch", st);
        }
        else {
            result = Py_NewRef(Py_None);
        }
    }
    PyBuffer_Release(&out);
done:
    while (--got >= 0) {
        PyBuffer_Release(&holes[got].view);
    }
    PyBuffer_Release(&board.view);
    Py_DECREF(seq);
    return result;
}

/* Omaha, exactly 4 hole cards ([N, 4] or [1, 4], shared) and 5 board cards ([N, 5]). */
static int
get_omaha(const char *fname, PyObject *const *args, Py_ssize_t nargs, CardArray *hole,
          CardArray *board, Py_buffer *out)
{
    char what[64];
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s() takes 3 arguments (hole, board, out), got %zd", fname,
                     nargs);
        return -1;
    }
    PyOS_snprintf(what, sizeof what, "%s: hole", fname);
    if (get_cards(args[0], what, 2, 4, 4, hole) < 0) {
        return -1;
    }
    PyOS_snprintf(what, sizeof what, "%s: board", fname);
    if (get_cards(args[1], what, 2, 5, 5, board) < 0) {
        PyBuffer_Release(&hole->view);
        return -1;
    }
    if (hole->rows != 1 && hole->rows != board->rows) {
        PyErr_Format(PyExc_ValueError, "%s: hole has %zd rows, the board %zd (or give one row)",
                     fname, hole->rows, board->rows);
    }
    else {
        PyOS_snprintf(what, sizeof what, "%s: out", fname);
        if (get_out(args[2], what, 0, 1, &board->rows, out) == 0) {
            return 0;
        }
    }
    PyBuffer_Release(&hole->view);
    PyBuffer_Release(&board->view);
    return -1;
}

/* The 10 three-card subsets of five board cards and the 6 pairs of four hole cards. */
static const unsigned char TRIPLES[10][3] = {{0, 1, 2}, {0, 1, 3}, {0, 1, 4}, {0, 2, 3}, {0, 2, 4},
                                             {0, 3, 4}, {1, 2, 3}, {1, 2, 4}, {1, 3, 4}, {2, 3, 4}};
static const unsigned char PAIRS[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

/* Reads the hole (row hr) and board (row r) of an Omaha deal: 4 + 9 distinct valid cards. */
ALWAYS_INLINE int
read_omaha_row(const CardArray *hole, const CardArray *board, Py_ssize_t r, Py_ssize_t hsize,
               Py_ssize_t bsize, unsigned *h, unsigned *b)
{
    uint64_t seen = 0;
    int kind = read_row(board->buf + r * 5 * bsize, 5, bsize, b, &seen);
    if (kind == K_OK) {
        Py_ssize_t hr = hole->rows == 1 ? 0 : r;
        kind = read_row(hole->buf + hr * 4 * hsize, 4, hsize, h, &seen);
    }
    return kind;
}

/* Best of the 60 pair + triple combinations: the rank value of each (pair_triple_value), and
 * where the board has three cards of a suit and the hole two (only one suit can have three of
 * five), the flush values of the combinations all in that suit, which beat their rank values. */
ALWAYS_INLINE Status
omaha_high_rows(const Tabs *t, const CardArray *hole, const CardArray *board, Py_ssize_t hsize,
                Py_ssize_t bsize, int32_t *out)
{
    Status st = {K_OK, 0};
    const uint64_t len = t->pair_triple_len;
    for (Py_ssize_t r = 0; r < board->rows; r++) {
        unsigned h[4], b[5];
        int kind = read_omaha_row(hole, board, r, hsize, bsize, h, b);
        if (kind != K_OK) {
            st.kind = kind;
            st.row = r;
            return st;
        }
        int64_t triple[10], pair[6];
        for (int k = 0; k < 10; k++) {
            const unsigned char *x = TRIPLES[k];
            triple[k] = t->triple_index[(b[x[0]] >> 2) * 169 + (b[x[1]] >> 2) * 13
                                        + (b[x[2]] >> 2)];
        }
        for (int k = 0; k < 6; k++) {
            pair[k] = t->pair_index[h[PAIRS[k][0]] * N_CARDS + h[PAIRS[k][1]]];
        }
        int32_t best = -1;
        uint64_t worst_index = 0;
        for (int i = 0; i < 6; i++) {
            for (int k = 0; k < 10; k++) {
                const uint64_t index = (uint64_t)(pair[i] + triple[k]);
                worst_index |= index >= len;
                const int32_t value = t->pair_triple_value[index < len ? index : 0];
                best = value > best ? value : best;
            }
        }
        if (worst_index) {
            st.kind = K_TABLE;
            st.row = r;
            return st;
        }
        unsigned suits = 0; /* three bits per suit: board suit counts */
        for (int j = 0; j < 5; j++) {
            suits += 1u << (3 * (b[j] & 3));
        }
        for (unsigned s = 0; s < 4; s++) {
            if ((suits >> (3 * s) & 7) < 3) {
                continue;
            }
            unsigned hole_mask[4], nh = 0, board_ranks[5], nb = 0;
            for (int j = 0; j < 4; j++) {
                if ((h[j] & 3) == s) {
                    hole_mask[nh++] = 1u << (h[j] >> 2);
                }
            }
            if (nh < 2) {
                break;
            }
            for (int j = 0; j < 5; j++) {
                if ((b[j] & 3) == s) {
                    board_ranks[nb++] = 1u << (b[j] >> 2);
                }
            }
            for (unsigned x = 0; x < nb; x++) {
                for (unsigned y = x + 1; y < nb; y++) {
                    for (unsigned z = y + 1; z < nb; z++) {
                        const unsigned three = board_ranks[x] | board_ranks[y] | board_ranks[z];
                        for (unsigned i = 0; i < nh; i++) {
                            for (unsigned j = i + 1; j < nh; j++) {
                                const int32_t value =
                                    t->flush_value[three | hole_mask[i] | hole_mask[j]];
                                best = value > best ? value : best;
                            }
                        }
                    }
                }
            }
            break;
        }
        out[r] = best;
    }
    return st;
}

static Status
omaha_high_kernel(const Tabs *t, const CardArray *hole, const CardArray *board, int32_t *out)
{
    Status st = {K_OK, 0};
    const Py_ssize_t hsize = hole->itemsize;
#define OMAHA_HIGH_ROWS(size) st = omaha_high_rows(t, hole, board, hsize, size, out)
    BY_ITEMSIZE(board->itemsize, OMAHA_HIGH_ROWS);
#undef OMAHA_HIGH_ROWS
    return st;
}

static Status
omaha_low_kernel(const Tabs *t, const CardArray *hole, const CardArray *board, int32_t *out)
{
    Status st = {K_OK, 0};
    const Py_ssize_t hsize = hole->itemsize, bsize = board->itemsize;
    for (Py_ssize_t r = 0; r < board->rows; r++) {
        unsigned h[4], b[5];
        int kind = read_omaha_row(hole, board, r, hsize, bsize, h, b);
        if (kind != K_OK) {
            st.kind = kind;
            st.row = r;
            return st;
        }
        uint32_t hole_mask = (uint32_t)(t->low_bit[h[0]] | t->low_bit[h[1]] | t->low_bit[h[2]]
                                        | t->low_bit[h[3]]);
        uint32_t board_mask = (uint32_t)(t->low_bit[b[0]] | t->low_bit[b[1]] | t->low_bit[b[2]]
                                         | t->low_bit[b[3]] | t->low_bit[b[4]]);
        out[r] = t->low_value[(hole_mask & 0xFF) << 8 | (board_mask & 0xFF)];
    }
    return st;
}

typedef Status (*OmahaKernel)(const Tabs *, const CardArray *, const CardArray *, int32_t *);

/* The two Omaha batch entry points: the same argument checks, table guard and error mapping
 * around their own kernel; ``omaha`` says whether the kernel reads the Omaha tables too. */
static PyObject *
run_omaha_batch(const char *name, OmahaKernel kernel, int omaha, PyObject *const *args,
                Py_ssize_t nargs)
{
    CardArray hole, board;
    Py_buffer out;
    if ((omaha ? ensure_omaha() : ensure_base()) < 0
        || get_omaha(name, args, nargs, &hole, &board, &out) < 0) {
        return NULL;
    }
    Tabs t;
    Status st = {K_OK, 0};
    int entered = enter_kernel(&t, omaha) == 0;
    if (entered) {
        Py_BEGIN_ALLOW_THREADS
        st = kernel(&t, &hole, &board, (int32_t *)out.buf);
        Py_END_ALLOW_THREADS
        leave_kernel();
    }
    PyBuffer_Release(&hole.view);
    PyBuffer_Release(&board.view);
    PyBuffer_Release(&out);
    if (!entered) {
        return NULL;
    }
    if (st.kind != K_OK) {
        return kernel_error(name, st);
    }
    Py_RETURN_NONE;
}

static PyObject *
omaha_high_batch(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return run_omaha_batch("omaha_high_batch", omaha_high_kernel, 1, args, nargs);
}

static PyObject *
omaha_low_batch(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return run_omaha_batch("omaha_low_batch", omaha_low_kernel, 0, args, nargs);
}

/* ---- sampling ---------------------------------------------------------------------------
 *
 * sample(deck, out, seed): each row of out [n, k] gets k distinct cards of deck, uniformly (all
 * ordered k-samples equally likely), rows independent. Partial Fisher-Yates: the first k slots
 * of a working copy of the deck are swapped with uniform picks from the rest. The copy is not
 * reset between rows: whatever order earlier rows left it in, a partial shuffle of any fixed
 * permutation yields a uniform k-sample, and the new picks are independent of that order.
 *
 * PRNG: xoshiro256** 1.0 (Blackman & Vigna), its 256-bit state filled from the 64-bit seed with
 * splitmix64 as its authors recommend; the caller draws the seed from its numpy Generator, so a
 * seeded Generator gives reproducible runouts. Bounded picks use Lemire's multiply-shift with
 * rejection ("Fast random integer generation in an interval", 2019): exactly uniform. */

static inline uint64_t
rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t
splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline uint64_t
xoshiro_next(uint64_t *s)
{
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in 0..range-1 (1 <= range <= 52). */
static inline uint32_t
bounded(uint64_t *s, uint32_t range)
{
    uint64_t m = (xoshiro_next(s) >> 32) * range;
    uint32_t low = (uint32_t)m;
    if (low < range) {
        uint32_t threshold = (uint32_t)(-range) % range;
        while (low < threshold) {
            m = (xoshiro_next(s) >> 32) * range;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

static void
sample_kernel(unsigned char *deck, uint32_t size, Py_ssize_t rows, Py_ssize_t k, uint64_t seed,
              unsigned char *out)
{
    uint64_t s[4];
    for (int i = 0; i < 4; i++) {
        s[i] = splitmix64(&seed);
    }
    for (Py_ssize_t r = 0; r < rows; r++) {
        unsigned char *row = out + r * k;
        for (Py_ssize_t j = 0; j < k; j++) {
            uint32_t pick = (uint32_t)j + bounded(s, size - (uint32_t)j);
            unsigned char card = deck[pick];
            deck[pick] = deck[j];
            deck[j] = card;
            row[j] = card;
        }
    }
}

static PyObject *
sample(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "sample() takes 3 arguments (deck, out, seed), got %zd",
                     nargs);
        return NULL;
    }
    if (!PyLong_Check(args[2])) {
        PyErr_Format(PyExc_TypeError, "sample: seed must be an int, got %.100s",
                     Py_TYPE(args[2])->tp_name);
        return NULL;
    }
    uint64_t seed = PyLong_AsUnsignedLongLongMask(args[2]); /* modulo 2 ** 64 */
    if (seed == (uint64_t)-1 && PyErr_Occurred()) {
        return NULL;
    }
    CardArray deck_view;
    if (get_cards(args[0], "sample: deck", 1, 1, N_CARDS, &deck_view) < 0) {
        return NULL;
    }
    unsigned char deck[N_CARDS];
    uint64_t seen = 0;
    unsigned cards[N_CARDS];
    int kind = read_row(deck_view.buf, deck_view.cols, deck_view.itemsize, cards, &seen);
    Py_ssize_t size = deck_view.cols;
    PyBuffer_Release(&deck_view.view);
    if (kind != K_OK) {
        PyErr_SetString(PyExc_ValueError, kind == K_RANGE
                                              ? "sample: deck has a card outside 0..51"
                                              : "sample: deck has a card more than once");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        deck[i] = (unsigned char)cards[i];
    }
    Py_buffer out;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE)
        < 0) {
        PyErr_Format(PyExc_TypeError, "sample: out: expected a writable C-contiguous array, "
                     "got %.100s", Py_TYPE(args[1])->tp_name);
        return NULL;
    }
    if (int_kind(out.format) != 'u' || out.itemsize != 1 || out.ndim != 2
        || out.shape[1] > size) {
        PyErr_Format(PyExc_ValueError,
                     "sample: out: expected a uint8 array [n, k] with k <= %zd (the deck), "
                     "got format %.20s with %d dimension(s)",
                     size, out.format != NULL ? out.format : "B", out.ndim);
        PyBuffer_Release(&out);
        return NULL;
    }
    Py_ssize_t rows = out.shape[0], k = out.shape[1];
    Py_BEGIN_ALLOW_THREADS
    sample_kernel(deck, (uint32_t)size, rows, k, seed, (unsigned char *)out.buf);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* ---- module ---------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"high", (PyCFunction)(void (*)(void))high, METH_FASTCALL | METH_KEYWORDS,
     "high(cards)\n--\n\nBest high value of 5 to 7 distinct cards (ints 0..51)."},
    {"omaha_high", (PyCFunction)(void (*)(void))omaha_high, METH_FASTCALL | METH_KEYWORDS,
     "omaha_high(hole, board)\n--\n\n"
     "Best high value with exactly two of 2..6 hole cards and three of 3..5 board cards."},
    {"omaha_low", (PyCFunction)(void (*)(void))omaha_low, METH_FASTCALL | METH_KEYWORDS,
     "omaha_low(hole, board)\n--\n\n"
     "Best 8-or-better low (exactly two hole and three board cards), or None."},
    {"high_batch", (PyCFunction)(void (*)(void))high_batch, METH_FASTCALL,
     "high_batch(cards, out)\n--\n\n"
     "High values of the rows of cards [N, 5..7] (1, 2, 4 or 8-byte ints) into out (int32 [N])."},
    {"holdem_batch", (PyCFunction)(void (*)(void))holdem_batch, METH_FASTCALL,
     "holdem_batch(holes, board, out)\n--\n\n"
     "High values of P players: holes, P arrays [N, 2] or [1, 2]; board [N, 5]; "
     "out int32 [P, N]."},
    {"omaha_high_batch", (PyCFunction)(void (*)(void))omaha_high_batch, METH_FASTCALL,
     "omaha_high_batch(hole, board, out)\n--\n\n"
     "Omaha high values: hole [N, 4] or [1, 4], board [N, 5], out int32 [N]."},
    {"omaha_low_batch", (PyCFunction)(void (*)(void))omaha_low_batch, METH_FASTCALL,
     "omaha_low_batch(hole, board, out)\n--\n\n"
     "Omaha 8-or-better low values (NO_LOW when none): hole [N, 4] or [1, 4], board [N, 5], "
     "out int32 [N]."},
    {"sample", (PyCFunction)(void (*)(void))sample, METH_FASTCALL,
     "sample(deck, out, seed)\n--\n\n"
     "Fills each row of out (uint8 [n, k]) with k distinct cards of deck (1-d), uniformly; "
     "xoshiro256** seeded from seed (an int, modulo 2 ** 64) with splitmix64."},
    {"init_tables", (PyCFunction)(void (*)(void))init_tables, METH_VARARGS | METH_KEYWORDS,
     "init_tables(card_key, lo_index, hi_index, rank_value, flush_suit, flush_value, "
     "low_bit, low_value, no_low, layout)\n--\n\n"
     "Use these arrays of tables() (hi_index, rank_value: 3-tuples for 5, 6, 7 cards; "
     "layout: (LO_BITS, HI_SHIFT, HI_BITS, SUIT_SHIFT))."},
    {"init_omaha", (PyCFunction)(void (*)(void))init_omaha, METH_VARARGS | METH_KEYWORDS,
     "init_omaha(pair_index, triple_index, pair_triple_value)\n--\n\n"
     "Use these arrays of omaha_tables()."},
    {"set_loader", set_loader, METH_O,
     "set_loader(loader)\n--\n\n"
     "loader(omaha: bool) is called on first use to call init_tables() (False) or "
     "init_omaha() (True)."},
    {"ready", ready, METH_NOARGS,
     "ready()\n--\n\n(hand tables loaded, Omaha tables loaded)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "libs.poker.fast._native",
    "Per-call hand evaluation in C over the tables of libs.poker.fast.tables.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__native(void)
{
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "API_VERSION", API_VERSION) < 0
        || PyModule_AddIntConstant(module, "MAX_PLAYERS", MAX_PLAYERS) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
