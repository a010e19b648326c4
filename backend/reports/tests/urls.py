"""Only the reports URLs: the suite tests this app's calls even while another app's URLs do not import."""

from django.urls import include, path

urlpatterns = [path("", include("backend.reports.urls"))]
