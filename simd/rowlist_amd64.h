// ROWLIST6 starts a 6-row row-list kernel whose first arguments are
// (y *uintptr, x *uintptr, w unsafe.Pointer): the six input rows'
// pointers from the x list into AX, BX, CX, SI, R8 and R9, the y list's
// address into R10 and the weights into DX.
#define ROWLIST6 \
	MOVQ x+8(FP), R10; \
	MOVQ 0(R10), AX; \
	MOVQ 8(R10), BX; \
	MOVQ 16(R10), CX; \
	MOVQ 24(R10), SI; \
	MOVQ 32(R10), R8; \
	MOVQ 40(R10), R9; \
	MOVQ y+0(FP), R10; \
	MOVQ w+16(FP), DX
