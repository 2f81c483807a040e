"""torchrun on a torch built without libuv: ``python3 -m slurm_elastic.torchrun``.

torch 2.4 and later ask for libuv in every TCPStore, and torchrun's own
rendezvous (static and c10d) creates its store without a way to say
otherwise: on a torch built without libuv (Debian 13's 2.6) plain
``torchrun`` fails before it starts a worker ("use_libuv was requested
but PyTorch was build without libuv support").  This runs torchrun with
those stores made without libuv and ``USE_LIBUV=0`` for the workers, when
this torch needs it (:func:`slurm_elastic.torch_store_fallback`), and as
it is otherwise.  The arguments are torchrun's.
"""

import sys

import torch.distributed.run as run

from . import torch_store_fallback


def main(argv=None):
    # torchrun's rendezvous modules, loaded, then their TCPStore mended.
    import torch.distributed.elastic.rendezvous.c10d_rendezvous_backend  # noqa: F401
    import torch.distributed.elastic.rendezvous.static_tcp_rendezvous  # noqa: F401
    torch_store_fallback()
    sys.argv[1:] = sys.argv[1:] if argv is None else argv
    return run.main()


if __name__ == "__main__":
    sys.exit(main())
