#!/usr/bin/env python
"""Three-stage train/test contamination audit; ``--help`` documents it. Thin over evalscope_phys.audit.

The same command is ``evalscope-phys audit``.
"""
import sys

from evalscope_phys.audit.cli import main

if __name__ == '__main__':
    sys.exit(main())
