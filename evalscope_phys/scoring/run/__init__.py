"""Running the engine under hard limits: the worker pool (``pool``), the worker process (``worker``),
its forkserver warm-up (``pool_warm_up``) and the input limits with the one deadline (``limits``).

Why a package: this is how an answer is run, apart from how it is read and compared; nothing here
knows what an answer means.
"""
