"""The top floor: what the whole experiment needs beyond one stage family. The interview
stage's call sizing (``sizing.py``, also behind ``interviewsim plan``) and the offline
responder that stands in for every model (``offline_responder.py``). The typed params live at
the bottom, in :mod:`interviewsim.config`."""
