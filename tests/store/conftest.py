from tests.cluster.fixtures import cluster_url

__all__ = ["cluster_url"]
