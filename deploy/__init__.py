"""The deployment: the Dockerfile, docker compose's files, Kubernetes manifests, the monitoring
configs, and (``deploy.containers``) the tools that build the images and run compose."""
