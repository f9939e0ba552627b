"""`python -m memactors.adapters.cli`: what hooks installed by earlier versions run."""

import sys

from memactors.adapters.cli import main

sys.exit(main())
