"""InterviewSim: how well do language models simulate real people from their past interviews?"""

__version__ = "0.1.0"
