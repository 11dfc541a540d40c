"""minimal layer: what `miniroom-agent` reaches (grants, call receipts, the operations behind the CLI) and
the deployment settings minimal mode needs."""
