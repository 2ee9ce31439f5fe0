"""Type stubs of the Rust extension module ``compclust._core`` (see ``crates/compclust-py``).

Results come back as numpy arrays and plain dicts built field by field on the Rust side (no
JSON); the dicts' keys are the ``TypedDict`` s below.
"""

from typing import Any, Callable, Dict, List, Literal, Optional, TypedDict

import numpy as np
import numpy.typing as npt

__version__: str
#: SPUR's first-pass tolerance, the default of ``spur_refine`` (the CLI's ``--spur-refine``).
DEFAULT_SPUR_REFINE: float

class ProjectionSeconds(TypedDict):
    # where an SDP solve's projections onto the PSD cone spent their time
    partial: float
    reduction: float
    tridiagonal: float
    back_transformation: float
    assembly: float

class SdpInfo(TypedDict):
    problem: Literal["sdp-k", "sdp-lambda"]
    k: Optional[int]
    # also "lambda" (Optional[float]): a keyword, so not declarable here
    iterations: int
    primal_residual: float
    dual_residual: float
    gap: float
    cone_residual: float
    objective: float
    dual_objective: float
    trace: float
    converged: bool
    eig_full: int
    eig_partial: int
    eig_inertia: int
    inertia_certified: bool
    full_from: Optional[int]
    trials_returned: int
    rho: float
    seconds: float
    projection_seconds: ProjectionSeconds

class SpurRow(TypedDict):
    k: int
    theta: float
    # also "lambda" (Optional[float])
    info: SdpInfo

class FlatResult(TypedDict):
    labels: npt.NDArray[np.int64]
    n_clusters: int
    spur: List[SpurRow]
    solver_info: SdpInfo  # empty for a single item

class OverlapResult(TypedDict, total=False):
    membership_matrix: Optional[npt.NDArray[np.int64]]
    n_clusters: int
    queries: int
    rounds: int
    missing: npt.NDArray[np.int64]
    stop: str
    aggregation: Dict[str, Any]

def cli_main(argv: list[str]) -> int: ...
def describe(x: npt.NDArray[np.int64], y: Optional[npt.NDArray[np.int64]] = ...) -> tuple[int, int, int, int, int]: ...
def cluster_flat(x: npt.NDArray[np.int64], y: Optional[npt.NDArray[np.int64]], n_items: Optional[int],
                 n_clusters: Optional[int], similarity: str, partition: str, seed: int,
                 sdp_tol: float = ..., spur_refine: Optional[float] = ...,
                 progress: Optional[Callable[[int, int], None]] = ...) -> FlatResult: ...
def cluster_file(path: str, kind: Optional[str], format: Optional[str], items: Optional[str],
                 n_clusters: Optional[int], partition: str, seed: int, sdp_tol: float = ...,
                 spur_refine: Optional[float] = ...,
                 progress: Optional[Callable[[int, int], None]] = ...) -> Dict[str, Any]: ...
def hierarchy(x: npt.NDArray[np.int64], y: Optional[npt.NDArray[np.int64]], n_items: Optional[int],
              method: str, active: bool = ..., init_clusters: Optional[npt.NDArray[np.int64]] = ...,
              seed: int = ..., references: Optional[int] = ..., budget: Optional[int] = ...,
              landmark_prob: Optional[float] = ..., workers: Optional[npt.NDArray[np.int64]] = ...,
              aggregate: str = ...,
              progress: Optional[Callable[[int, int], None]] = ...) -> Dict[str, Any]: ...
def cut_dendrogram(z: npt.NDArray[np.float64], k: int) -> list[int]: ...
def tste(x: npt.NDArray[np.int64], y: Optional[npt.NDArray[np.int64]], n_items: Optional[int], n_components: int,
         alpha: Optional[float], lambd: float, max_iter: int, seed: int) -> npt.NDArray[np.float64]: ...
def soe(x: npt.NDArray[np.int64], y: Optional[npt.NDArray[np.int64]], n_items: Optional[int], n_components: int,
        margin: float, n_init: int, max_iter: int, seed: int) -> npt.NDArray[np.float64]: ...
def forte(x: npt.NDArray[np.int64], y: Optional[npt.NDArray[np.int64]], n_items: Optional[int], n_components: int,
          max_trace: Optional[float], max_iter: int, seed: int) -> npt.NDArray[np.float64]: ...
def triplet_accuracy(embedding: npt.NDArray[np.float64], x: npt.NDArray[np.int64],
                     y: Optional[npt.NDArray[np.int64]] = ...) -> float: ...
def adjusted_rand(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> float: ...
def aari(truth: npt.NDArray[np.float64], pred: npt.NDArray[np.float64], levels: list[int]) -> float: ...
def dasgupta_cost(z: npt.NDArray[np.float64], similarity: npt.NDArray[np.float64]) -> float: ...
def load_comparisons(path: str, kind: Optional[str] = ..., format: Optional[str] = ...) -> tuple[npt.NDArray[np.int64], list[str], str]: ...
def make_planted(n: int, k: int, family: str, delta: float, eps: float, n_comparisons: Optional[int],
                 quadruplets: bool, seed: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def overlap_fit(method: str, n_items: int, k: Optional[int], delta: Optional[int], flip_prob: Optional[float],
                sample_size: Optional[int], seed: int, oracle: Optional[Callable[[int, int], int]] = ...,
                answers: Optional[npt.NDArray[np.int64]] = ...,
                ensemble: Optional[str] = ..., workers: Optional[npt.NDArray[np.int64]] = ...,
                aggregate: str = ...) -> OverlapResult: ...
def load_mnist_tsne(points: str, labels: str) -> tuple[npt.NDArray[np.float64], list[int]]: ...
def load_zoo(path: str) -> tuple[npt.NDArray[np.float64], Optional[list[int]], list[str], list[str]]: ...
def sample_from_features(x: npt.NDArray[np.float64], n_comparisons: int, kernel: str, eps: float,
                         quadruplets: bool, seed: int) -> npt.NDArray[np.int64]: ...
