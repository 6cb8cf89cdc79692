/* Optional C reader of NATS message frames for chosen subscriptions (libs/eventstore/natsraw.py).
 *
 * take(buf, sids) reads the complete MSG and HMSG frames at the start of ``buf`` (the bytearray
 * nats-py's parser keeps) whose subscription id is a key of ``sids``, and stops at the first
 * thing that is not one: another subscription's message, any other protocol line (PING, +OK,
 * -ERR, INFO), an incomplete frame or anything it does not read exactly as the protocol writes
 * it. It returns the frames as (sid, subject, reply, payload, header block or None), how many
 * bytes they took, and whether what follows is the start of a frame still arriving that is (or,
 * its control line unfinished, may be) one of them: the caller removes the bytes taken and,
 * unless it holds that start until more arrives, hands the rest to nats-py's own parser, so
 * everything this reader does not take goes exactly the way it went before.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_CONTROL_LINE 4096
#define MAX_TOKENS 6

typedef struct {
    const char *start;
    Py_ssize_t size;
} token;

/* "123" -> 123; -1 for anything else (empty, a sign, more than 18 digits). */
static long long
number(token t)
{
    if (t.size == 0 || t.size > 18) {
        return -1;
    }
    long long value = 0;
    for (Py_ssize_t i = 0; i < t.size; i++) {
        char c = t.start[i];
        if (c < '0' || c > '9') {
            return -1;
        }
        value = value * 10 + (c - '0');
    }
    return value;
}

static PyObject *
take(PyObject *self, PyObject *args)
{
    PyObject *buffer, *sids;
    if (!PyArg_ParseTuple(args, "O!O!:take", &PyByteArray_Type, &buffer, &PyDict_Type, &sids)) {
        return NULL;
    }
    const char *base = PyByteArray_AS_STRING(buffer);
    Py_ssize_t size = PyByteArray_GET_SIZE(buffer), at = 0;
    int hold = 0;
    PyObject *frames = PyList_New(0);
    if (frames == NULL) {
        return NULL;
    }
    while (at < size) {
        const char *line = base + at;
        Py_ssize_t left = size - at, skip;
        int headers;
        if (left >= 5 && memcmp(line, "HMSG ", 5) == 0) {
            headers = 1;
            skip = 5;
        }
        else if (left >= 4 && memcmp(line, "MSG ", 4) == 0) {
            headers = 0;
            skip = 4;
        }
        else {
            break;
        }
        Py_ssize_t limit = left < MAX_CONTROL_LINE ? left : MAX_CONTROL_LINE, end = -1;
        for (Py_ssize_t i = skip; i + 1 < limit; i++) {
            if (line[i] == '\r') {
                if (line[i + 1] == '\n') {
                    end = i;
                }
                break;
            }
        }
        if (end < 0) {
            /* no end of line yet: wait for it as nats-py would (unless it is too long, or odd) */
            hold = limit == left && memchr(line, '\r', (size_t)left) == NULL;
            break;
        }
        token tokens[MAX_TOKENS];
        int count = 0, odd = 0;
        Py_ssize_t i = skip;
        while (i < end) {
            Py_ssize_t from = i;
            while (i < end && line[i] != ' ') {
                i++;
            }
            if (i == from || count == MAX_TOKENS) { /* two spaces in a row, or too many */
                odd = 1;
                break;
            }
            tokens[count].start = line + from;
            tokens[count].size = i - from;
            count++;
            if (i < end) {
                i++; /* the space */
                if (i == end) {
                    odd = 1; /* a trailing space */
                    break;
                }
            }
        }
        /* MSG subject sid [reply] total; HMSG subject sid [reply] header_size total */
        int numbers = headers ? 2 : 1;
        if (odd || count < 2 + numbers || count > 3 + numbers) {
            break;
        }
        int has_reply = count == 3 + numbers;
        long long sid = number(tokens[1]);
        long long total = number(tokens[count - 1]);
        long long header_size = headers ? number(tokens[count - 2]) : 0;
        if (sid < 0 || total < 0 || header_size < 0 || header_size > total) {
            break;
        }
        Py_ssize_t payload_at = end + 2;
        PyObject *key = PyLong_FromLongLong(sid);
        if (key == NULL) {
            Py_DECREF(frames);
            return NULL;
        }
        int ours = PyDict_Contains(sids, key);
        if (ours <= 0) {
            Py_DECREF(key);
            if (ours < 0) {
                Py_DECREF(frames);
                return NULL;
            }
            break; /* another subscription's: nats-py's way */
        }
        if ((long long)(left - payload_at) < total + 2) {
            Py_DECREF(key);
            hold = 1; /* ours, its payload still arriving */
            break;
        }
        const char *payload = line + payload_at;
        if (payload[total] != '\r' || payload[total + 1] != '\n') {
            Py_DECREF(key);
            break;
        }
        PyObject *block;
        if (headers && header_size > 0) {
            block = PyBytes_FromStringAndSize(payload, (Py_ssize_t)header_size);
        }
        else {
            block = Py_NewRef(Py_None);
        }
        PyObject *frame =
            block == NULL
                ? NULL
                : Py_BuildValue(
                      "(Ny#y#y#N)", key, tokens[0].start, tokens[0].size,
                      has_reply ? tokens[2].start : "", has_reply ? tokens[2].size : 0,
                      payload + header_size, (Py_ssize_t)(total - header_size), block);
        if (frame == NULL) {
            if (block == NULL) {
                Py_DECREF(key);
            }
            Py_DECREF(frames);
            return NULL;
        }
        int failed = PyList_Append(frames, frame);
        Py_DECREF(frame);
        if (failed) {
            Py_DECREF(frames);
            return NULL;
        }
        at += payload_at + (Py_ssize_t)total + 2;
    }
    return Py_BuildValue("(NnO)", frames, at, hold ? Py_True : Py_False);
}

static PyMethodDef methods[] = {
    {"take", take, METH_VARARGS,
     "take(buf, sids) -> (frames, consumed, hold): the complete MSG/HMSG frames of "
     "subscriptions in sids at the start of buf, as (sid, subject, reply, payload, header block "
     "or None); hold: what follows is such a frame still arriving."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_frames", "NATS message frames of chosen subscriptions.", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__frames(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "API_VERSION", 1) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
