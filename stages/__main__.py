"""``python -m stages`` is the same as the ``interviewsim`` console script."""

from stages.cli import main

main()
