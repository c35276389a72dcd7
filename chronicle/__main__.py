import sys

from chronicle import main

sys.exit(main())
