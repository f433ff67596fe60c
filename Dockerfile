# The server's image for deploy/kubernetes: the tricktable command with the PostgreSQL record store.
FROM python:3.11-slim
WORKDIR /src
COPY . .
RUN pip install --no-cache-dir '.[postgres]' && useradd --uid 10001 --create-home tricktable \
    && mkdir -p /var/lib/tricktable && chown tricktable /var/lib/tricktable
USER tricktable
ENTRYPOINT ["tricktable"]
CMD ["serve", "--host", "0.0.0.0"]
