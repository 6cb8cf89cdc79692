/* The table stream's commits read in C: the fields a replay needs from a serialized
 * holdem.events.v1.Commit, without building the protobuf message and a Python object per field.
 *
 * split(payload) -> (seconds, nanos, automatic, types, versions, data, long_numbers)
 *   seconds, nanos: recorded_at (0, 0 when absent); automatic: bool;
 *   types: list of str, versions: list of int, one per RecordedEvent (field 9), in order;
 *   data: bytes, the records' JSON data side by side as one JSON array: b"[d1,d2,...]";
 *   long_numbers: whether data holds 19 digits in a row (what codec.parse_json checks for).
 *
 * It reads the protobuf wire format as the protobuf runtime does for these fields (the last
 * occurrence of a scalar wins, records accumulate, unknown fields of known wire types are
 * skipped, strings must be UTF-8). Anything else it does not take on (a record's or recorded_at's
 * field met twice, groups, a malformed or truncated message) raises ValueError, and the caller
 * reads the payload with the protobuf runtime instead: the same answer or the same refusal.
 * libs/tableproto/envelope.py is the only caller; tests/table/test_wire.py holds the two equal.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define API_VERSION 1

typedef struct {
    const unsigned char *p;
    const unsigned char *end;
} reader;

static int
read_varint(reader *r, uint64_t *out)
{
    uint64_t value = 0;
    int shift = 0;
    while (r->p < r->end && shift < 64) {
        unsigned char byte = *r->p++;
        value |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) {
            *out = value;
            return 0;
        }
        shift += 7;
    }
    return -1; /* truncated, or longer than 10 bytes */
}

static int
read_len(reader *r, const unsigned char **start, Py_ssize_t *size)
{
    uint64_t n;
    if (read_varint(r, &n) < 0 || n > (uint64_t)(r->end - r->p)) {
        return -1;
    }
    *start = r->p;
    *size = (Py_ssize_t)n;
    r->p += n;
    return 0;
}

/* Skip one field's value of wire type ``wire``; -1 for groups and unknown types. */
static int
skip(reader *r, unsigned wire)
{
    uint64_t ignored;
    const unsigned char *start;
    Py_ssize_t size;
    switch (wire) {
    case 0:
        return read_varint(r, &ignored);
    case 1:
        if (r->end - r->p < 8) {
            return -1;
        }
        r->p += 8;
        return 0;
    case 2:
        return read_len(r, &start, &size);
    case 5:
        if (r->end - r->p < 4) {
            return -1;
        }
        r->p += 4;
        return 0;
    default:
        return -1;
    }
}

static PyObject *
refuse(const char *why)
{
    PyErr_SetString(PyExc_ValueError, why);
    return NULL;
}

/* google.protobuf.Timestamp: seconds (1, int64), nanos (2, int32). */
static int
read_timestamp(const unsigned char *p, Py_ssize_t size, int64_t *seconds, int32_t *nanos)
{
    reader r = {p, p + size};
    while (r.p < r.end) {
        uint64_t key, value;
        if (read_varint(&r, &key) < 0) {
            return -1;
        }
        if ((key >> 3) > 536870911u) { /* beyond the largest field number */
            return -1;
        }
        unsigned field = (unsigned)(key >> 3), wire = (unsigned)(key & 7);
        if ((field == 1 || field == 2) && wire == 0) {
            if (read_varint(&r, &value) < 0) {
                return -1;
            }
            if (field == 1) {
                *seconds = (int64_t)value;
            }
            else {
                *nanos = (int32_t)(uint32_t)value;
            }
        }
        else if (field == 0 || skip(&r, wire) < 0) {
            return -1;
        }
    }
    return 0;
}

/* holdem.events.v1.RecordedEvent: type (1, string), schema_version (2, uint32), data (3,
 * bytes). Each field at most once (else the caller reads it with protobuf). */
static int
read_record(const unsigned char *p, Py_ssize_t size, PyObject *types, PyObject *versions,
            PyObject *parts)
{
    reader r = {p, p + size};
    const unsigned char *type = (const unsigned char *)"", *data = NULL;
    Py_ssize_t type_size = 0, data_size = 0;
    uint64_t version = 0;
    int seen_type = 0, seen_version = 0, seen_data = 0;
    while (r.p < r.end) {
        uint64_t key;
        if (read_varint(&r, &key) < 0) {
            return -1;
        }
        if ((key >> 3) > 536870911u) { /* beyond the largest field number */
            return -1;
        }
        unsigned field = (unsigned)(key >> 3), wire = (unsigned)(key & 7);
        if (field == 1 && wire == 2) {
            if (seen_type++ || read_len(&r, &type, &type_size) < 0) {
                return -1;
            }
        }
        else if (field == 2 && wire == 0) {
            if (seen_version++ || read_varint(&r, &version) < 0) {
                return -1;
            }
        }
        else if (field == 3 && wire == 2) {
            if (seen_data++ || read_len(&r, &data, &data_size) < 0) {
                return -1;
            }
        }
        else if (field == 0 || skip(&r, wire) < 0) {
            return -1;
        }
    }
    PyObject *name = PyUnicode_DecodeUTF8((const char *)type, type_size, NULL);
    if (name == NULL) {
        PyErr_Clear();
        return -1;
    }
    int failed = PyList_Append(types, name);
    Py_DECREF(name);
    if (failed) {
        return -2;
    }
    PyObject *number = PyLong_FromUnsignedLong((unsigned long)(uint32_t)version);
    if (number == NULL) {
        return -2;
    }
    failed = PyList_Append(versions, number);
    Py_DECREF(number);
    if (failed) {
        return -2;
    }
    /* an empty data is not JSON: the caller's JSON parse refuses it, as before */
    PyObject *slice = PyBytes_FromStringAndSize((const char *)(data ? data : p), data_size);
    if (slice == NULL) {
        return -2;
    }
    failed = PyList_Append(parts, slice);
    Py_DECREF(slice);
    return failed ? -2 : 0;
}

/* 19 digits in a row: maybe an integer beyond 64 bits, which orjson would read as a float
 * (codec.parse_json then takes the standard parser). */
static int
holds_long_number(const char *p, Py_ssize_t size)
{
    int run = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        if (p[i] >= '0' && p[i] <= '9') {
            if (++run >= 19) {
                return 1;
            }
        }
        else {
            run = 0;
        }
    }
    return 0;
}

static PyObject *
joined(PyObject *parts, int *long_number)
{
    Py_ssize_t count = PyList_GET_SIZE(parts), total = 2 + (count > 1 ? count - 1 : 0);
    for (Py_ssize_t i = 0; i < count; i++) {
        total += PyBytes_GET_SIZE(PyList_GET_ITEM(parts, i));
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, total);
    if (out == NULL) {
        return NULL;
    }
    char *w = PyBytes_AS_STRING(out);
    *w++ = '[';
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *part = PyList_GET_ITEM(parts, i);
        if (i) {
            *w++ = ',';
        }
        memcpy(w, PyBytes_AS_STRING(part), (size_t)PyBytes_GET_SIZE(part));
        if (!*long_number) {
            *long_number = holds_long_number(PyBytes_AS_STRING(part), PyBytes_GET_SIZE(part));
        }
        w += PyBytes_GET_SIZE(part);
    }
    *w = ']';
    return out;
}

static PyObject *
split(PyObject *Py_UNUSED(module), PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    reader r = {(const unsigned char *)view.buf, (const unsigned char *)view.buf + view.len};
    int64_t seconds = 0;
    int32_t nanos = 0;
    uint64_t automatic = 0;
    int seen_time = 0;
    PyObject *types = PyList_New(0), *versions = PyList_New(0), *parts = PyList_New(0);
    PyObject *result = NULL;
    if (types == NULL || versions == NULL || parts == NULL) {
        goto done;
    }
    while (r.p < r.end) {
        uint64_t key;
        const unsigned char *start;
        Py_ssize_t size;
        if (read_varint(&r, &key) < 0 || (key >> 3) > 536870911u) {
            refuse("malformed commit");
            goto done;
        }
        unsigned field = (unsigned)(key >> 3), wire = (unsigned)(key & 7);
        if (field == 4 && wire == 2) { /* recorded_at */
            if (seen_time++ || read_len(&r, &start, &size) < 0
                || read_timestamp(start, size, &seconds, &nanos) < 0) {
                refuse("a recorded_at this reader does not take on");
                goto done;
            }
        }
        else if (field == 9 && wire == 2) { /* recorded */
            if (read_len(&r, &start, &size) < 0) {
                refuse("malformed record");
                goto done;
            }
            int failed = read_record(start, size, types, versions, parts);
            if (failed == -2) {
                goto done;
            }
            if (failed) {
                refuse("a record this reader does not take on");
                goto done;
            }
        }
        else if ((field == 1 || field == 5 || field == 6 || field == 7) && wire == 2) {
            /* table_id, causation_id, correlation_id, command_type: not needed, but strings
             * protobuf would refuse unless UTF-8 */
            if (read_len(&r, &start, &size) < 0) {
                refuse("malformed commit");
                goto done;
            }
            PyObject *text = PyUnicode_DecodeUTF8((const char *)start, size, NULL);
            if (text == NULL) {
                PyErr_Clear();
                refuse("a string that is not UTF-8");
                goto done;
            }
            Py_DECREF(text);
        }
        else if (field == 8 && wire == 2) { /* events: empty in the stored stream */
            refuse("a commit with client-shaped events");
            goto done;
        }
        else if (field == 10 && wire == 0) { /* automatic */
            if (read_varint(&r, &automatic) < 0) {
                refuse("malformed commit");
                goto done;
            }
        }
        else if (field == 0 || skip(&r, wire) < 0) {
            refuse("malformed commit");
            goto done;
        }
    }
    int long_number = 0;
    PyObject *data = joined(parts, &long_number);
    if (data != NULL) {
        result = Py_BuildValue("(LiNNNNN)", (long long)seconds, (int)nanos,
                               PyBool_FromLong(automatic != 0), types, versions, data,
                               PyBool_FromLong(long_number));
        types = versions = NULL; /* references taken by the tuple (N) */
    }
done:
    Py_XDECREF(types);
    Py_XDECREF(versions);
    Py_XDECREF(parts);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"split", split, METH_O,
     "split(payload)\n--\n\n"
     "(seconds, nanos, automatic, types, versions, data, long_numbers) of a serialized "
     "Commit: recorded_at, automatic, each record's type and schema version, the records' "
     "JSON data as one JSON array, and whether it holds 19 digits in a row; ValueError for "
     "what it does not take on (read it with protobuf then)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "libs.tableproto._wire",
    "The table stream's commits, read for a replay in C.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__wire(void)
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
