import sys

from evalscope_phys.cli import main

sys.exit(main())
