/* Per-call hand evaluation in C over the lookup tables that libs/poker/fast/tables.py builds.
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
 * corrupted table raises an exception and can never read outside a table. The GIL is held
 * throughout: no Python code runs between reading a table pointer and using it.
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
#define API_VERSION 1

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

/* Takes views of objs[i] for tables first..first+count-1; all or nothing. */
static int
install(PyObject *const *objs, int first, int count)
{
    Py_buffer fresh[N_TABLES];
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
            PyBuffer_Release(&views[first + i]);
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
    if (PyModule_AddIntConstant(module, "API_VERSION", API_VERSION) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
