"""The lazy store: each file's written data kept page by page until it is fsynced, as the kernel's
page cache holds dirty pages; ``crash`` drops what was never synced. Pure file I/O on a backing
folder, usable without FUSE (libs/nemesis/lazyfs.py mounts it; the tests drive it directly)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

PAGE = 4096


@dataclass
class _Dirty:
    """One file's unsynced state: its size as the writer sees it, how much of the backing file
    still holds its content (``valid``: the least size it had since the last sync; past it, what
    is not in a page reads as zeros), the pages it changed, and a descriptor of its own (as the
    page cache holds the inode after the writer closed it)."""

    size: int
    valid: int
    fd: int
    pages: dict[int, bytearray] = field(default_factory=dict)

    def stored(self, offset: int, length: int) -> bytes:
        """What the backing file holds for this range as the writer sees it (zeros past
        ``valid`` and past the backing file's end)."""
        keep = max(0, min(length, self.valid - offset))
        data = os.pread(self.fd, keep, offset) if keep else b""
        return data.ljust(length, b"\0")


class LazyStore:
    """The page-cache model, apart from FUSE so it can be tested on plain files: written data is
    kept per inode until :meth:`sync`; :meth:`crash` forgets all of it."""

    def __init__(self) -> None:
        self._dirty: dict[int, _Dirty] = {}
        self.synced_bytes = 0
        self.fsyncs = 0

    def dirty_bytes(self) -> int:
        return sum(len(page) for dirty in self._dirty.values() for page in dirty.pages.values())

    def size(self, inode: int, backing_size: int) -> int:
        dirty = self._dirty.get(inode)
        return backing_size if dirty is None else dirty.size

    def _state(self, inode: int, fd: int) -> _Dirty:
        dirty = self._dirty.get(inode)
        if dirty is None:
            size = os.fstat(fd).st_size
            dirty = self._dirty[inode] = _Dirty(size, size, os.dup(fd))
        return dirty

    @staticmethod
    def _page(dirty: _Dirty, index: int) -> bytearray:
        page = dirty.pages.get(index)
        if page is None:
            page = dirty.pages[index] = bytearray(dirty.stored(index * PAGE, PAGE))
        return page

    def write(self, inode: int, fd: int, data: bytes, offset: int) -> int:
        dirty = self._state(inode, fd)
        done = 0
        while done < len(data):
            index, within = divmod(offset + done, PAGE)
            take = min(PAGE - within, len(data) - done)
            self._page(dirty, index)[within : within + take] = data[done : done + take]
            done += take
        dirty.size = max(dirty.size, offset + len(data))
        return len(data)

    def read(self, inode: int, fd: int, size: int, offset: int) -> bytes:
        dirty = self._dirty.get(inode)
        if dirty is None:
            return os.pread(fd, size, offset)
        end = min(offset + size, dirty.size)
        out = bytearray()
        position = offset
        while position < end:
            index, within = divmod(position, PAGE)
            take = min(PAGE - within, end - position)
            page = dirty.pages.get(index)
            out += dirty.stored(position, take) if page is None else page[within : within + take]
            position += take
        return bytes(out)

    def truncate(self, inode: int, fd: int, length: int) -> None:
        dirty = self._state(inode, fd)
        for index in [i for i in dirty.pages if i * PAGE >= length]:
            del dirty.pages[index]
        last = dirty.pages.get(length // PAGE)
        if last is not None:  # what lay past the new end reads as zeros if the file grows again
            last[length % PAGE :] = bytes(PAGE - length % PAGE)
        dirty.valid = min(dirty.valid, length)
        dirty.size = length

    def sync(self, inode: int, fd: int) -> int:
        """Write the inode's pages to the backing file and fsync it: from here they survive.
        Returns the bytes written back."""
        written = self._write_back(inode)
        os.fsync(fd)
        self.fsyncs += 1
        return written

    def _write_back(self, inode: int) -> int:
        dirty = self._dirty.pop(inode, None)
        if dirty is None:
            return 0
        written = 0
        try:
            os.ftruncate(dirty.fd, dirty.valid)  # past it the file was cut: zeros, not old data
            for index, page in sorted(dirty.pages.items()):
                chunk = page[: max(0, min(PAGE, dirty.size - index * PAGE))]
                os.pwrite(dirty.fd, chunk, index * PAGE)
                written += len(chunk)
            os.ftruncate(dirty.fd, dirty.size)
        finally:
            os.close(dirty.fd)
        self.synced_bytes += written
        return written

    def sync_all(self) -> int:
        """What sync(1) does, or the kernel's writeback given time: every dirty page reaches the
        backing files (and is fsynced). Returns the bytes written back."""
        written = 0
        for inode in list(self._dirty):
            fd = self._dirty[inode].fd
            os.fsync(fd)  # before the write-back closes it: nothing unsynced is in the backing file
            written += self._write_back(inode)
        os.sync()
        return written

    def forget(self, inode: int) -> None:
        """The file is gone (unlinked, or replaced by a rename): its inode may be reused."""
        dirty = self._dirty.pop(inode, None)
        if dirty is not None:
            os.close(dirty.fd)

    def crash(self) -> int:
        """The power fails: every unsynced page is lost. Returns the bytes dropped."""
        dropped = self.dirty_bytes()
        for dirty in self._dirty.values():
            os.close(dirty.fd)
        self._dirty.clear()
        return dropped
