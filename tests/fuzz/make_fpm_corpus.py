#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Seed corpus for fuzz_fpm from the zebra captures.

    make_fpm_corpus.py [GOLDEN_DIR [CORPUS_DIR]]

Each frame of tests/golden/fpm/NAME.hex becomes tests/fuzz/corpus/fpm/NAME_N
(binary, FPM header included); all frames of a file together become
NAME_stream, so the framing loop of the target starts from real streams.
"""

import os
import sys

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, 'tests/golden/fpm')
dst = sys.argv[2] if len(sys.argv) > 2 else os.path.join(top, 'tests/fuzz/corpus/fpm')
os.makedirs(dst, exist_ok=True)
for name in sorted(os.listdir(src)):
    if not name.endswith('.hex'):
        continue
    frames = [bytes.fromhex(l.strip()) for l in open(os.path.join(src, name))
              if l.strip() and not l.startswith('#')]
    base = name[:-4]
    for i, f in enumerate(frames):
        with open(os.path.join(dst, f'{base}_{i}'), 'wb') as out:
            out.write(f)
    if len(frames) > 1:
        with open(os.path.join(dst, f'{base}_stream'), 'wb') as out:
            out.write(b''.join(frames))
