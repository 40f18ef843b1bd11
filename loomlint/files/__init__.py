"""Source files, read and written safely. The bottom wing: it imports nothing of loomlint.

- ``reading``: a file to check read as bytes: regular files only, nothing that can block;
- ``encoding``: an editor's buffer as the bytes of its file (its coding declaration's);
- ``lines``: a source split into lines as Python counts them (the one splitter every writer,
  the suppressions and the language server use);
- ``safe``: reading and writing in a tree loomlint does not trust (no link followed, no file
  written in place); ``atomic``: a file replaced in one rename;
- ``stamps``: what the caches take a file to be unchanged by (mtime, ctime, size).
"""
