# The readiness API image; the refresh job runs the same image with another command.
# Built by the release pipeline, not here (docs/OPERATIONS.md#the-image):
#   docker build -t REGISTRY/readiness-api:TAG .                  (production: no sample data)
#   docker build --target dev -t readiness-api:dev .              (k8s/overlays/dev: with it)
# tests/test_dockerfile.py checks what it can without a Docker engine.

# Pin a digest (python:3.11-slim@sha256:...) in the release pipeline for reproducible builds.
ARG PYTHON_IMAGE=python:3.11-slim

# --- build: install the locked runtime dependencies into a virtualenv ----------------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# No pip or setuptools in the virtualenv: the base image's pip installs into it from outside,
# and the service needs neither at run time.
RUN python -m venv --without-pip /venv
COPY requirements.lock /tmp/requirements.lock
# Every package of the tree is in the lock with its hashes: pip installs exactly those files
# (hash-checking mode), wheels only, and resolves nothing itself.
RUN pip --python /venv/bin/python install --require-hashes --no-deps --only-binary=:all: \
        --requirement /tmp/requirements.lock

# The share previews' text (readiness/pages/preview_svg.py): resvg draws with fonts found on the
# machine, and the slim base has none: DejaVu Sans, and WenQuanYi Micro Hei (5 MB) for the
# Chinese previews (as `make fonts` installs for the tests). Installed here, copied into the service below.
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core fonts-wqy-microhei \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY server.py ./
COPY config/ config/
COPY loaders/ loaders/
COPY readiness/ readiness/
# The snapshot publisher, for the refresh job (k8s/base/refresh-cronjob.yaml), and the
# snapshot sync (k8s/components/snapshot-sync).
COPY builder/ builder/
# The root file system is read-only at run time: compile the bytecode now.
RUN /venv/bin/python -m compileall -q /app

# --- service: the same slim base, with no compiler, pip cache or build files ----------------
FROM ${PYTHON_IMAGE} AS service
RUN groupadd --system --gid 10001 readiness \
    && useradd --system --uid 10001 --gid readiness --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin readiness
COPY --from=build /venv /venv
COPY --from=build /usr/share/fonts/truetype/dejavu/ /usr/share/fonts/truetype/dejavu/
COPY --from=build /usr/share/fonts/truetype/wqy/ /usr/share/fonts/truetype/wqy/
COPY --from=build /app /app
ENV PATH=/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
WORKDIR /app
# Numeric, so Kubernetes' runAsNonRoot can check it without reading /etc/passwd.
USER 10001:10001
EXPOSE 8080
# One Tornado process, as PID 1: it handles SIGTERM itself (graceful stop). Settings other than
# these three come from READINESS_* variables (docs/CONFIGURATION.md).
CMD ["python", "server.py", "--host", "0.0.0.0", "--port", "8080", "--data-dir", "/data"]

# --- dev: the service plus the SYNTHETIC sample (16 MB), which only k8s/overlays/dev uses, to
# seed its volume. Built only with --target dev.
FROM service AS dev
COPY data/sample/ data/sample/

# --- runtime: the production image (the default target, being last): the service as it is.
# Without the sample, a pod started without the snapshot volume is never ready rather than
# serving invented numbers.
FROM service AS runtime
