# A static omni binary on a distroless base (CA certificates for omni pull,
# nonroot user 65532, nothing else). Build: docker build -t omni:latest .
# The Kubernetes manifests in deploy/kubernetes run this image twice: as the
# init container (omni pull) and as the server (omni serve).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO_ENABLED=0: a static binary; -trimpath and the fixed build id make it
# reproducible. host/guest.wasm is embedded from the tree as committed.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -buildid=" -o /out/omni ./cmd/omni

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/omni /omni
USER 65532:65532
ENV HF_HUB_CACHE=/models/hub
EXPOSE 8000
ENTRYPOINT ["/omni"]
CMD ["serve", "--listen", "0.0.0.0:8000"]
