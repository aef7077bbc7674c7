"""DVC stage entry points: one thin Click command per stage, plus the `interviewsim` group."""
