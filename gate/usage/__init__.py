"""What a model or a search call used and what it cost: ``tokens`` reads the usage out of the response
shapes that say it, ``cost`` prices it from the configuration's table. Pure, and below every step that
counts usage (the judge, the importers, the Recorder inside an agent), so none imports another for it.
"""
